// ClusterConfig from a kubeconfig file or a pod's service account; server URLs and replica lists.
#include "client/kube_config.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/codec.h"

namespace tenure::client {

namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// Relative file paths in a kubeconfig are relative to the kubeconfig's folder.
std::string Resolve(const std::string& file, const std::string& base_dir) {
  if (file.empty() || file[0] == '/') return file;
  return base_dir + "/" + file;
}

// The `field` of the list entry named `name`; an undefined node when there is none.
YAML::Node FindNamed(const YAML::Node& list, const std::string& name, const char* field) {
  if (list && list.IsSequence()) {
    for (const auto& item : list) {
      if (item["name"] && item["name"].as<std::string>() == name && item[field]) {
        return item[field];
      }
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string Str(const YAML::Node& node, const char* key) {
  if (!node || !node[key]) return "";
  return node[key].as<std::string>();
}

Result<std::string> Decode64(const std::string& data, const char* what) {
  auto decoded = api::Base64Decode(data);
  if (!decoded) return Status::BadRequest(std::string("kubeconfig: invalid base64 in ") + what);
  return *decoded;
}

}  // namespace

Status ParseServerUrl(const std::string& url, ClusterConfig& config) {
  config.server = url;
  std::string rest;
  if (url.rfind("https://", 0) == 0) {
    config.endpoint.tls.enabled = true;
    rest = url.substr(8);
  } else if (url.rfind("http://", 0) == 0) {
    config.endpoint.tls.enabled = false;
    rest = url.substr(7);
  } else {
    return Status::BadRequest("server URL must start with https:// or http://: " + url);
  }
  size_t slash = rest.find('/');
  std::string hostport = rest.substr(0, slash);
  config.path_prefix = slash == std::string::npos ? "" : rest.substr(slash);
  while (!config.path_prefix.empty() && config.path_prefix.back() == '/') {
    config.path_prefix.pop_back();
  }
  std::string host = hostport;
  std::string port;
  if (!hostport.empty() && hostport[0] == '[') {  // [::1]:6443
    size_t close = hostport.find(']');
    if (close == std::string::npos) return Status::BadRequest("invalid server URL: " + url);
    host = hostport.substr(1, close - 1);
    if (close + 1 < hostport.size() && hostport[close + 1] == ':')
      port = hostport.substr(close + 2);
  } else if (size_t colon = hostport.rfind(':'); colon != std::string::npos) {
    host = hostport.substr(0, colon);
    port = hostport.substr(colon + 1);
  }
  if (host.empty()) return Status::BadRequest("invalid server URL: " + url);
  int p = config.endpoint.tls.enabled ? 443 : 80;
  if (!port.empty()) {
    char* end = nullptr;
    long v = std::strtol(port.c_str(), &end, 10);
    if (*end != '\0' || v <= 0 || v > 65535) return Status::BadRequest("invalid port in " + url);
    p = static_cast<int>(v);
  }
  config.endpoint.host = host;
  config.endpoint.port = static_cast<uint16_t>(p);
  return Status::Ok();
}

std::vector<Endpoint> AllEndpoints(const ClusterConfig& config) {
  std::vector<Endpoint> all = {config.endpoint};
  all.insert(all.end(), config.more_endpoints.begin(), config.more_endpoints.end());
  return all;
}

Result<std::vector<std::string>> SplitServerList(const std::string& text) {
  std::vector<std::string> urls;
  std::stringstream list(text);
  std::string entry;
  while (std::getline(list, entry, ',')) {
    size_t first = entry.find_first_not_of(" \t");
    size_t last = entry.find_last_not_of(" \t");
    if (first == std::string::npos) {
      return Status::BadRequest("empty entry in the server list \"" + text + "\"");
    }
    urls.push_back(entry.substr(first, last - first + 1));
  }
  if (urls.empty() || text.back() == ',') {
    return Status::BadRequest("empty entry in the server list \"" + text + "\"");
  }
  return urls;
}

Status UseServers(ClusterConfig& config, const std::vector<std::string>& entries) {
  std::vector<std::string> urls;
  for (const std::string& entry : entries) {
    auto split = SplitServerList(entry);
    if (!split.ok()) return split.status();
    urls.insert(urls.end(), split->begin(), split->end());
  }
  if (urls.empty()) return Status::Ok();
  std::vector<ClusterConfig> parsed;
  for (const std::string& url : urls) {
    ClusterConfig one = config;  // keeps the CA, client certificate and TLS server name
    if (Status s = ParseServerUrl(url, one); !s.ok()) return s;
    if (!parsed.empty() && (one.endpoint.tls.enabled != parsed[0].endpoint.tls.enabled ||
                            one.path_prefix != parsed[0].path_prefix)) {
      return Status::BadRequest("the servers " + urls[0] + " and " + url +
                                " differ in scheme or path: list replicas of one API server");
    }
    parsed.push_back(std::move(one));
  }
  config.endpoint = parsed[0].endpoint;
  config.path_prefix = parsed[0].path_prefix;
  config.more_endpoints.clear();
  config.server = urls[0];
  for (size_t i = 1; i < parsed.size(); ++i) {
    config.more_endpoints.push_back(parsed[i].endpoint);
    config.server += "," + urls[i];
  }
  return Status::Ok();
}

Result<ClusterConfig> LoadKubeconfig(const std::string& path_in, const std::string& context_in) {
  std::string path = path_in;
  if (path.empty()) {
    if (const char* env = std::getenv("KUBECONFIG"); env && *env) {
      std::stringstream list(env);
      std::string entry;
      while (std::getline(list, entry, ':')) {
        if (!entry.empty() && std::filesystem::exists(entry)) {
          path = entry;
          break;
        }
      }
    }
    if (path.empty()) {
      const char* home = std::getenv("HOME");
      path = std::string(home ? home : "") + "/.kube/config";
    }
  }
  if (!std::filesystem::exists(path)) return Status::NotFound("kubeconfig not found: " + path);
  std::string base_dir = std::filesystem::absolute(path).parent_path().string();
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const std::exception& e) {
    return Status::BadRequest("cannot parse kubeconfig " + path + ": " + e.what());
  }
  try {
    std::string context_name = context_in.empty() ? Str(root, "current-context") : context_in;
    if (context_name.empty())
      return Status::BadRequest("kubeconfig " + path + " has no current-context");
    YAML::Node context = FindNamed(root["contexts"], context_name, "context");
    if (!context) return Status::NotFound("context \"" + context_name + "\" not found in " + path);
    YAML::Node cluster = FindNamed(root["clusters"], Str(context, "cluster"), "cluster");
    if (!cluster) return Status::NotFound("cluster of context \"" + context_name + "\" not found");
    YAML::Node user = FindNamed(root["users"], Str(context, "user"), "user");

    ClusterConfig config;
    if (Status s = ParseServerUrl(Str(cluster, "server"), config); !s.ok()) return s;
    TlsOptions& tls = config.endpoint.tls;
    tls.insecure_skip_verify =
        cluster["insecure-skip-tls-verify"] && cluster["insecure-skip-tls-verify"].as<bool>();
    tls.server_name = Str(cluster, "tls-server-name");
    if (std::string data = Str(cluster, "certificate-authority-data"); !data.empty()) {
      auto ca = Decode64(data, "certificate-authority-data");
      if (!ca.ok()) return ca.status();
      tls.ca_data = *ca;
    }
    tls.ca_file = Resolve(Str(cluster, "certificate-authority"), base_dir);
    if (user) {
      config.token = Str(user, "token");
      config.token_file = Resolve(Str(user, "tokenFile"), base_dir);
      tls.cert_file = Resolve(Str(user, "client-certificate"), base_dir);
      tls.key_file = Resolve(Str(user, "client-key"), base_dir);
      if (std::string data = Str(user, "client-certificate-data"); !data.empty()) {
        auto cert = Decode64(data, "client-certificate-data");
        if (!cert.ok()) return cert.status();
        tls.cert_data = *cert;
      }
      if (std::string data = Str(user, "client-key-data"); !data.empty()) {
        auto key = Decode64(data, "client-key-data");
        if (!key.ok()) return key.status();
        tls.key_data = *key;
      }
    }
    if (std::string ns = Str(context, "namespace"); !ns.empty()) config.namespace_ = ns;
    return config;
  } catch (const std::exception& e) {
    return Status::BadRequest("invalid kubeconfig " + path + ": " + e.what());
  }
}

Result<ClusterConfig> LoadInClusterConfig(const std::string& root) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port) {
    return Status::NotFound(
        "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not "
        "set");
  }
  ClusterConfig config;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";
  if (Status s = ParseServerUrl("https://" + h + ":" + port, config); !s.ok()) return s;
  config.token_file = root + "/token";
  if (!std::filesystem::exists(config.token_file)) {
    return Status::NotFound("service account token not found: " + config.token_file);
  }
  config.endpoint.tls.ca_file = root + "/ca.crt";
  if (std::string ns = Trim(ReadText(root + "/namespace")); !ns.empty()) config.namespace_ = ns;
  return config;
}

Result<ClusterConfig> LoadDefaultConfig() {
  if (const char* host = std::getenv("KUBERNETES_SERVICE_HOST"); host && *host) {
    return LoadInClusterConfig();
  }
  return LoadKubeconfig();
}

}  // namespace tenure::client
