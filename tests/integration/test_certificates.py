"""Client certificates and the server certificate against the real `tenure serve`:

- `tenure issue-user NAME --group G` writes a kubeconfig whose certificate (signed by the data
  folder's CA) authenticates NAME in G with kubectl; the user's rights still come from RBAC;
- a certificate the server does not trust is 401, whatever else it says: signed by another CA,
  expired, or not for client authentication (the server's own certificate); a valid bearer token
  next to a refused certificate still authenticates (kube-apiserver's union of authenticators);
- --client-ca-file adds a CA whose certificates authenticate;
- --tls-san adds names to the server certificate; --tls-cert-file/--tls-private-key-file serve
  the user's own certificate, read again without a restart when the files change;
- bad flags exit 2 naming the flag.
"""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import json
import os
import ssl
import subprocess
import tempfile
import unittest

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tenure_testlib import Server, ServerTestCase, core_path, tenure_bin, wait_until

NOW = datetime.datetime.now(datetime.timezone.utc)


def new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def pem_key(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def pem_cert(cert) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def certificate(subject: list[tuple], key, issuer_cert=None, issuer_key=None, *, ca=False,
                usage=ExtendedKeyUsageOID.CLIENT_AUTH, not_before=None, not_after=None,
                alt_names: list[str] = ()):
    name = x509.Name([x509.NameAttribute(oid, value) for oid, value in subject])
    builder = (x509.CertificateBuilder().subject_name(name)
               .issuer_name(issuer_cert.subject if issuer_cert else name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(not_before or NOW - datetime.timedelta(hours=1))
               .not_valid_after(not_after or NOW + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if not ca:
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    if alt_names:
        entries = []
        for n in alt_names:
            try:
                entries.append(x509.IPAddress(ipaddress.ip_address(n)))
            except ValueError:
                entries.append(x509.DNSName(n))
        builder = builder.add_extension(x509.SubjectAlternativeName(entries), critical=False)
    return builder.sign(issuer_key or key, hashes.SHA256())


def load_pem(path: str, key: bool):
    with open(path, "rb") as fh:
        data = fh.read()
    return serialization.load_pem_private_key(data, None) if key else x509.load_pem_x509_certificate(data)


class Files:
    """PEM files of one certificate and key in a private temporary folder."""

    def __init__(self, folder: str, name: str, cert, key):
        self.cert = os.path.join(folder, name + ".crt")
        self.key = os.path.join(folder, name + ".key")
        self.write(cert, key)

    def write(self, cert, key) -> None:
        # Key first and the certificate by rename: the server never reads a certificate whose key
        # is not there yet.
        with open(self.key + ".new", "wb") as fh:
            fh.write(pem_key(key))
        os.replace(self.key + ".new", self.key)
        with open(self.cert + ".new", "wb") as fh:
            fh.write(pem_cert(cert))
        os.replace(self.cert + ".new", self.cert)


def request(server: Server, path: str, cert: Files | None = None, token: str | None = None,
            cafile: str | None = None) -> tuple[int, dict]:
    """One HTTPS GET with an optional client certificate and bearer token."""
    context = ssl.create_default_context(cafile=cafile or server.cafile)
    if cert is not None:
        context.load_cert_chain(cert.cert, cert.key)
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=context, timeout=30)
    try:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        conn.request("GET", path, headers=headers)
        r = conn.getresponse()
        body = r.read()
        try:
            return r.status, json.loads(body)
        except ValueError:
            return r.status, {"raw": body.decode("utf-8", "replace")}
    finally:
        conn.close()


class ClientCertificateTest(ServerTestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.folder = tempfile.mkdtemp(prefix="tenure-certs-")
        # A CA of the user's own, trusted through --client-ca-file.
        cls.own_ca_key = new_key()
        cls.own_ca = certificate([(NameOID.COMMON_NAME, "own-ca")], cls.own_ca_key, ca=True)
        cls.own_ca_file = os.path.join(cls.folder, "own-ca.crt")
        with open(cls.own_ca_file, "wb") as fh:
            fh.write(pem_cert(cls.own_ca))
        cls.SERVER_ARGS = ("--client-ca-file", cls.own_ca_file)
        super().setUpClass()

    def issue(self, user: str, *groups: str) -> str:
        out = os.path.join(self.folder, user + ".kubeconfig")
        args = [tenure_bin(), "issue-user", user, "--data-dir", self.server.data_dir, "--kubeconfig", out]
        for group in groups:
            args += ["--group", group]
        p = subprocess.run(args, capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), out)
        self.assertEqual(os.stat(out).st_mode & 0o777, 0o600)
        return out

    def data_ca(self):
        return (load_pem(os.path.join(self.server.data_dir, "ca.crt"), key=False),
                load_pem(os.path.join(self.server.data_dir, "ca.key"), key=True))

    def files(self, name: str, cert, key) -> Files:
        return Files(self.folder, name, cert, key)

    def test_issue_user_writes_a_kubeconfig_kubectl_authenticates_with(self):
        kubeconfig = self.issue("carol", "team-a", "ops")
        k = self.server.kubectl("1.33")
        out = k.ok("--kubeconfig", kubeconfig, "auth", "whoami")
        rows = [line.split(None, 1) for line in out.splitlines()[1:]]
        self.assertIn(["Username", "carol"], rows, out)
        self.assertIn(["Groups", "[team-a ops system:authenticated]"], rows, out)
        r = k.fails("--kubeconfig", kubeconfig, "get", "leases")
        self.assertIn('User "carol" cannot list resource "leases"', r.stderr, r.describe())

    def test_certificates_the_server_does_not_trust_are_unauthorized(self):
        ca_cert, ca_key = self.data_ca()
        key = new_key()
        subject = [(NameOID.COMMON_NAME, "mallory")]
        other_ca_key = new_key()
        other_ca = certificate([(NameOID.COMMON_NAME, "other-ca")], other_ca_key, ca=True)
        cases = {
            "signed by another CA": certificate(subject, key, other_ca, other_ca_key),
            "expired": certificate(subject, key, ca_cert, ca_key, not_before=NOW - datetime.timedelta(days=3),
                                   not_after=NOW - datetime.timedelta(days=1)),
            "not valid yet": certificate(subject, key, ca_cert, ca_key, not_before=NOW + datetime.timedelta(days=1),
                                         not_after=NOW + datetime.timedelta(days=3)),
            "for servers only": certificate(subject, key, ca_cert, ca_key, usage=ExtendedKeyUsageOID.SERVER_AUTH),
        }
        for what, cert in cases.items():
            status, body = request(self.server, "/version", cert=self.files("bad", cert, key))
            self.assertEqual(status, 401, f"{what}: {body}")
            self.assertEqual(body.get("message"), "Unauthorized", what)
        # A refused certificate next to a good token: the token authenticates.
        status, body = request(self.server, core_path("namespaces"), cert=self.files("bad", cases["expired"], key),
                               token=self.server.token)
        self.assertEqual(status, 200, body)

    def test_a_certificate_of_the_client_ca_file_authenticates(self):
        key = new_key()
        cert = certificate([(NameOID.ORGANIZATION_NAME, "g1"), (NameOID.ORGANIZATION_NAME, "g2"),
                            (NameOID.COMMON_NAME, "dave")], key, self.own_ca, self.own_ca_key)
        body = json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
        context = ssl.create_default_context(cafile=self.server.cafile)
        files = self.files("dave", cert, key)
        context.load_cert_chain(files.cert, files.key)
        conn = http.client.HTTPSConnection("127.0.0.1", self.server.port, context=context, timeout=30)
        conn.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", body=body,
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        review = json.loads(r.read())
        conn.close()
        self.assertEqual(r.status, 201, review)
        self.assertEqual(review["status"]["userInfo"]["username"], "dave")
        self.assertEqual(review["status"]["userInfo"]["groups"], ["g1", "g2", "system:authenticated"])

    def test_a_certificate_without_a_common_name_is_anonymous(self):
        ca_cert, ca_key = self.data_ca()
        key = new_key()
        cert = certificate([(NameOID.ORGANIZATION_NAME, "g")], key, ca_cert, ca_key)
        status, body = request(self.server, core_path("namespaces"), cert=self.files("nameless", cert, key))
        self.assertEqual(status, 403, body)
        self.assertIn('User "system:anonymous"', body.get("message", ""))


class OwnCertificateServer(Server):
    """A server that serves the user's own certificate: clients trust that, not the data folder's CA."""

    def __init__(self, args, trust: str):
        super().__init__(args)
        self.trust = trust

    @property
    def cafile(self) -> str:
        return self.trust


class ServerCertificateTest(unittest.TestCase):
    def setUp(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="tenure-servercert-")

    def start(self, *args: str, trust: str | None = None) -> Server:
        server = OwnCertificateServer(args, trust) if trust else Server(args)
        self.addCleanup(server.cleanup)
        server.start()
        return server

    def test_tls_san_adds_names_to_the_server_certificate(self):
        server = self.start("--tls-san", "coordination.example", "--tls-san", "10.9.8.7")
        cert = load_pem(os.path.join(server.data_dir, "server.crt"), key=False)
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        self.assertEqual(names.get_values_for_type(x509.DNSName), ["localhost", "coordination.example"])
        self.assertEqual([str(ip) for ip in names.get_values_for_type(x509.IPAddress)],
                         ["127.0.0.1", "::1", "10.9.8.7"])
        # Another start with the same names keeps the certificate.
        before = cert.serial_number
        server.restart()
        self.assertEqual(load_pem(os.path.join(server.data_dir, "server.crt"), key=False).serial_number, before)

    def own_certificate(self, serial_name: str):
        key = new_key()
        cert = certificate([(NameOID.COMMON_NAME, serial_name)], key, usage=ExtendedKeyUsageOID.SERVER_AUTH,
                           alt_names=["localhost", "127.0.0.1"])
        return cert, key

    def served_certificate(self, server: Server) -> x509.Certificate:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        with ssl.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname="localhost") as tls:
                return x509.load_der_x509_certificate(tls.getpeercert(binary_form=True))

    def test_the_users_own_certificate_is_served_and_reloaded_without_a_restart(self):
        first, first_key = self.own_certificate("first")
        files = Files(self.folder, "own", first, first_key)
        server = self.start("--tls-cert-file", files.cert, "--tls-private-key-file", files.key, trust=files.cert)
        self.assertEqual(self.served_certificate(server).serial_number, first.serial_number)
        # kubectl trusts it through the data folder's kubeconfig.
        out = server.kubectl("1.33").ok("get", "namespaces", "-o", "name")
        self.assertIn("namespace/default", out)
        second, second_key = self.own_certificate("second")
        files.write(second, second_key)
        wait_until(lambda: self.served_certificate(server).serial_number == second.serial_number, timeout=15,
                   what="the renewed certificate is served")
        self.assertTrue(server.running())

    def test_bad_certificate_flags_exit_2_naming_the_flag(self):
        cases = [
            (["--tls-cert-file", "/nonexistent.crt"], "--tls-cert-file and --tls-private-key-file go together"),
            (["--client-ca-file", "/nonexistent-ca.crt"], "--client-ca-file: cannot read /nonexistent-ca.crt"),
        ]
        for args, message in cases:
            data = tempfile.mkdtemp(prefix="tenure-badflags-", dir=self.folder)
            p = subprocess.run([tenure_bin(), "serve", "--data-dir", data, "--listen", "127.0.0.1:0", *args],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(message, p.stderr)


if __name__ == "__main__":
    unittest.main()
