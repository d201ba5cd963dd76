"""Every way to authenticate, with kubectl and with the official Python client, against the real
`tenure serve`: for each method a valid credential is the user it names, and an expired, revoked,
foreign (another CA, another signer) or malformed one is 401 Unauthorized.

| method              | valid | expired | revoked            | wrong CA / signer | malformed |
|---------------------|-------|---------|--------------------|-------------------|-----------|
| static token        | yes   | -       | -                  | -                 | yes       |
| client certificate  | yes   | yes     | -                  | yes               | -         |
| ServiceAccount token| yes   | yes     | account deleted    | another key       | yes       |

(Static tokens do not expire and are revoked by restarting without them; a certificate cannot
be revoked but expires; a malformed certificate does not make it through the TLS handshake.)
"""

from __future__ import annotations

import base64
import datetime
import json
import os
import tempfile
import unittest

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tenure_testlib import ServerTestCase, write_token_file

NOW = datetime.datetime.now(datetime.timezone.utc)
TOKENS = "static-token,sam,501,\"team-s\"\n"
ISSUER = "https://kubernetes.default.svc.cluster.local"
WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
TOKEN_FILE = write_token_file(TOKENS, "tenure-matrix-tokens-")


def tearDownModule():
    os.unlink(TOKEN_FILE)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(key, claims: dict) -> str:
    """An ES256 JWT as the server signs them."""
    head = b64url(json.dumps({"alg": "ES256", "kid": "x"}).encode())
    body = b64url(json.dumps(claims).encode())
    r, s = decode_dss_signature(key.sign(f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256())))
    return f"{head}.{body}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def account_claims(ns: str, name: str, uid: str, issued: datetime.datetime, lifetime: int) -> dict:
    iat = int(issued.timestamp())
    return {"iss": ISSUER, "sub": f"system:serviceaccount:{ns}:{name}", "aud": [ISSUER], "iat": iat, "nbf": iat,
            "exp": iat + lifetime, "jti": "test",
            "kubernetes.io": {"namespace": ns, "serviceaccount": {"name": name, "uid": uid}}}


class AuthenticationMatrixTest(ServerTestCase):
    SERVER_ARGS = ("--token-auth-file", TOKEN_FILE)

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.folder = tempfile.mkdtemp(prefix="matrix-", dir=cls.server.workdir)
        cls.k = cls.server.kubectl("1.33")
        cls.k.ok("create", "serviceaccount", "robot")
        cls.robot_uid = json.loads(cls.k.ok("get", "serviceaccount", "robot", "-o", "json"))["metadata"]["uid"]
        with open(os.path.join(cls.server.data_dir, "sa.key"), "rb") as fh:
            cls.signing_key = serialization.load_pem_private_key(fh.read(), None)
        with open(os.path.join(cls.server.data_dir, "ca.crt"), "rb") as fh:
            cls.ca = x509.load_pem_x509_certificate(fh.read())
        with open(os.path.join(cls.server.data_dir, "ca.key"), "rb") as fh:
            cls.ca_key = serialization.load_pem_private_key(fh.read(), None)

    # -- credentials ------------------------------------------------------------------------------
    def certificate(self, name: str, *, signer=None, signer_key=None, expired=False) -> tuple[str, str]:
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "matrix"),
                             x509.NameAttribute(NameOID.COMMON_NAME, name)])
        start = NOW - datetime.timedelta(days=3 if expired else 0, hours=1)
        end = NOW - datetime.timedelta(days=1) if expired else NOW + datetime.timedelta(days=1)
        issuer = signer or self.ca
        cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer.subject)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(start).not_valid_after(end)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
                .sign(signer_key or self.ca_key, hashes.SHA256()))
        cert_file = os.path.join(self.folder, name + ".crt")
        key_file = os.path.join(self.folder, name + ".key")
        with open(cert_file, "wb") as fh:
            fh.write(cert.public_bytes(serialization.Encoding.PEM))
        with open(key_file, "wb") as fh:
            fh.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
        return cert_file, key_file

    def foreign_ca(self):
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "foreign-ca")])
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(NOW - datetime.timedelta(hours=1))
                .not_valid_after(NOW + datetime.timedelta(days=1))
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .sign(key, hashes.SHA256()))
        return cert, key

    def account_token(self, *, expired=False, foreign=False) -> str:
        issued = NOW - datetime.timedelta(hours=3) if expired else NOW
        key = ec.generate_private_key(ec.SECP256R1()) if foreign else self.signing_key
        return jwt(key, account_claims("default", "robot", self.robot_uid, issued, 3600))

    def kubeconfig(self, name: str, user_fields: dict) -> str:
        path = os.path.join(self.folder, name + ".kubeconfig")
        config = {"apiVersion": "v1", "kind": "Config",
                  "clusters": [{"name": "t", "cluster": {"server": f"https://127.0.0.1:{self.server.port}",
                                                         "certificate-authority": self.server.cafile}}],
                  "users": [{"name": "u", "user": user_fields}],
                  "contexts": [{"name": "t", "context": {"cluster": "t", "user": "u", "namespace": "default"}}],
                  "current-context": "t"}
        with open(path, "w") as fh:
            json.dump(config, fh)  # JSON is YAML
        return path

    # -- the two clients ------------------------------------------------------------------------------
    def kubectl_user(self, kubeconfig: str) -> str | None:
        """The username `kubectl auth whoami` reports, or None when it says Unauthorized."""
        r = self.k.run("--kubeconfig", kubeconfig, "auth", "whoami", "-o", "json")
        if r.returncode != 0:
            self.assertIn("Unauthorized", r.stderr, r.describe())
            return None
        return json.loads(r.stdout)["status"]["userInfo"]["username"]

    def python_user(self, token: str | None = None, cert: tuple[str, str] | None = None) -> str | None:
        from kubernetes import client
        from kubernetes.client.rest import ApiException
        cfg = client.Configuration()
        cfg.host = f"https://127.0.0.1:{self.server.port}"
        cfg.ssl_ca_cert = self.server.cafile
        if token is not None:
            cfg.api_key = {"authorization": f"Bearer {token}"}
        if cert is not None:
            cfg.cert_file, cfg.key_file = cert
        api = client.ApiClient(cfg)
        try:
            review = api.call_api(WHOAMI, "POST", body={"apiVersion": "authentication.k8s.io/v1",
                                                         "kind": "SelfSubjectReview"},
                                  response_type="object", auth_settings=["BearerToken"], _return_http_data_only=True)
            return review["status"]["userInfo"]["username"]
        except ApiException as e:
            self.assertEqual(e.status, 401, e.body)
            return None
        finally:
            api.rest_client.pool_manager.clear()

    def both(self, expected: str | None, *, token: str | None = None, cert: tuple[str, str] | None = None,
             what: str = "") -> None:
        fields = {}
        if token is not None:
            fields["token"] = token
        if cert is not None:
            fields["client-certificate"], fields["client-key"] = cert
        with self.subTest(what, client="kubectl"):
            self.assertEqual(self.kubectl_user(self.kubeconfig(what.replace(" ", "-"), fields)), expected)
        with self.subTest(what, client="python"):
            self.assertEqual(self.python_user(token=token, cert=cert), expected)

    # -- the matrix ----------------------------------------------------------------------------------
    def test_static_tokens(self):
        self.both("sam", token="static-token", what="static valid")
        self.both(None, token="not-a-known-token", what="static malformed")

    def test_client_certificates(self):
        self.both("cert-user", cert=self.certificate("cert-user"), what="certificate valid")
        self.both(None, cert=self.certificate("cert-expired", expired=True), what="certificate expired")
        ca, ca_key = self.foreign_ca()
        self.both(None, cert=self.certificate("cert-foreign", signer=ca, signer_key=ca_key),
                  what="certificate of another CA")

    def test_service_account_tokens(self):
        real = self.k.ok("create", "token", "robot", "--duration", "10m").strip()
        self.both("system:serviceaccount:default:robot", token=real, what="account token valid")
        self.both("system:serviceaccount:default:robot", token=self.account_token(), what="account token crafted")
        self.both(None, token=self.account_token(expired=True), what="account token expired")
        self.both(None, token=self.account_token(foreign=True), what="account token of another signer")
        self.both(None, token=real[:-4] + ("AAAA" if not real.endswith("AAAA") else "BBBB"),
                  what="account token tampered")
        self.both(None, token="a.b.c", what="account token malformed")
        self.k.ok("delete", "serviceaccount", "robot")
        self.both(None, token=real, what="account token revoked")


if __name__ == "__main__":
    unittest.main()
