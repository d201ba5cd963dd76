// ClusterConfig from a kubeconfig file or a pod's service account; server URLs and replica lists.
#include "client/kube_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
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

namespace {

// One named entry of a kubeconfig (a cluster, user or context) and the folder of the file that
// defined it, against which its relative paths resolve.
struct Named {
  YAML::Node node;
  std::string base_dir;
  std::string file;
};

// The kubeconfig files merged with kubectl's rules (see kube_config.h).
struct MergedKubeconfig {
  std::vector<std::string> files;
  std::string current_context;
  std::map<std::string, Named> clusters, users, contexts;
};

void MergeNamed(const YAML::Node& list, const char* field, const std::string& base_dir,
                const std::string& file, std::map<std::string, Named>& into) {
  if (!list || !list.IsSequence()) return;
  for (const auto& item : list) {
    if (!item.IsMap() || !item["name"] || !item[field]) continue;
    into.emplace(item["name"].as<std::string>(), Named{item[field], base_dir, file});
  }
}

// The files to read: `path` alone when given, else the KUBECONFIG list, else ~/.kube/config.
Result<std::vector<std::string>> KubeconfigFiles(const std::string& path) {
  if (!path.empty()) {
    if (!std::filesystem::exists(path)) return Status::NotFound("kubeconfig not found: " + path);
    return std::vector<std::string>{path};
  }
  std::vector<std::string> files;
  if (const char* env = std::getenv("KUBECONFIG"); env && *env) {
    std::stringstream list(env);
    std::string entry;
    while (std::getline(list, entry, ':')) {
      if (entry.empty() || !std::filesystem::exists(entry)) continue;  // kubectl skips them
      if (std::find(files.begin(), files.end(), entry) == files.end()) files.push_back(entry);
    }
    if (files.empty()) {
      return Status::NotFound(std::string("no file of KUBECONFIG=") + env + " exists");
    }
    return files;
  }
  const char* home = std::getenv("HOME");
  std::string fallback = std::string(home ? home : "") + "/.kube/config";
  if (!std::filesystem::exists(fallback)) {
    return Status::NotFound("kubeconfig not found: " + fallback +
                            " (set KUBECONFIG or pass a kubeconfig file)");
  }
  return std::vector<std::string>{fallback};
}

Result<MergedKubeconfig> LoadMerged(const std::string& path) {
  auto files = KubeconfigFiles(path);
  if (!files.ok()) return files.status();
  MergedKubeconfig merged;
  merged.files = *files;
  for (const std::string& file : *files) {
    YAML::Node root;
    try {
      root = YAML::LoadFile(file);
    } catch (const std::exception& e) {
      return Status::BadRequest("cannot parse kubeconfig " + file + ": " + e.what());
    }
    if (root.IsNull()) continue;  // an empty file adds nothing
    if (!root.IsMap()) return Status::BadRequest("kubeconfig " + file + " is not a YAML mapping");
    std::string base_dir = std::filesystem::absolute(file).parent_path().string();
    try {
      if (merged.current_context.empty()) merged.current_context = Str(root, "current-context");
      MergeNamed(root["clusters"], "cluster", base_dir, file, merged.clusters);
      MergeNamed(root["users"], "user", base_dir, file, merged.users);
      MergeNamed(root["contexts"], "context", base_dir, file, merged.contexts);
    } catch (const std::exception& e) {
      return Status::BadRequest("invalid kubeconfig " + file + ": " + e.what());
    }
  }
  return merged;
}

std::string FileList(const MergedKubeconfig& merged) {
  std::string out;
  for (const std::string& f : merged.files) out += (out.empty() ? "" : ", ") + f;
  return out;
}

// The exec section of a user, with its command resolved as client-go does: a command holding a
// slash is relative to the kubeconfig's folder; a bare name is looked up on PATH.
Result<ExecConfig> ExecOf(const YAML::Node& exec, const std::string& user_name,
                          const std::string& base_dir) {
  ExecConfig config;
  config.api_version = Str(exec, "apiVersion");
  config.command = Str(exec, "command");
  if (config.command.find('/') != std::string::npos) {
    config.command =
        std::filesystem::path(Resolve(config.command, base_dir)).lexically_normal().string();
  }
  if (exec["args"] && exec["args"].IsSequence()) {
    for (const auto& arg : exec["args"]) config.args.push_back(arg.as<std::string>());
  }
  if (exec["env"] && exec["env"].IsSequence()) {
    for (const auto& var : exec["env"]) {
      std::string name = Str(var, "name");
      if (name.empty()) {
        return Status::BadRequest("users[" + user_name + "].user.exec.env: an entry has no name");
      }
      config.env.emplace_back(name, Str(var, "value"));
    }
  }
  config.install_hint = Str(exec, "installHint");
  config.provide_cluster_info = exec["provideClusterInfo"] && exec["provideClusterInfo"].as<bool>();
  config.interactive_mode = Str(exec, "interactiveMode");
  if (Status s = ValidateExecConfig(config, user_name); !s.ok()) return s;
  return config;
}

// A YAML node as JSON: plain scalars that read as a boolean, null or number become one, quoted
// ones stay strings.
nlohmann::json YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& entry : node) out[entry.first.as<std::string>()] = YamlToJson(entry.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(YamlToJson(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      std::string text = node.Scalar();
      if (node.Tag() != "!") {
        if (text == "true" || text == "false") return text == "true";
        if (text == "null" || text == "~") return nullptr;
        nlohmann::json number = nlohmann::json::parse(text, nullptr, false);
        if (number.is_number()) return number;
      }
      return text;
    }
    default:
      return nullptr;
  }
}

// spec.cluster of KUBERNETES_EXEC_INFO: client-go's clientauthentication Cluster.
std::string ExecClusterJson(const YAML::Node& cluster, const ClusterConfig& config) {
  nlohmann::json out = {{"server", Str(cluster, "server")}};
  if (!config.endpoint.tls.server_name.empty())
    out["tls-server-name"] = config.endpoint.tls.server_name;
  if (config.endpoint.tls.insecure_skip_verify) out["insecure-skip-tls-verify"] = true;
  std::string ca = config.endpoint.tls.ca_data;
  if (ca.empty() && !config.endpoint.tls.ca_file.empty())
    ca = ReadText(config.endpoint.tls.ca_file);
  if (!ca.empty()) out["certificate-authority-data"] = api::Base64Encode(ca);
  if (std::string proxy = Str(cluster, "proxy-url"); !proxy.empty()) out["proxy-url"] = proxy;
  // The cluster's extension named client.authentication.k8s.io/exec is the plugin's own config.
  if (cluster["extensions"] && cluster["extensions"].IsSequence()) {
    for (const auto& ext : cluster["extensions"]) {
      if (Str(ext, "name") == "client.authentication.k8s.io/exec" && ext["extension"]) {
        out["config"] = YamlToJson(ext["extension"]);
      }
    }
  }
  return out.dump();
}

}  // namespace

Result<ClusterConfig> LoadKubeconfig(const std::string& path, const std::string& context_in) {
  auto merged = LoadMerged(path);
  if (!merged.ok()) return merged.status();
  try {
    std::string context_name = context_in.empty() ? merged->current_context : context_in;
    if (context_name.empty()) {
      return Status::BadRequest("kubeconfig " + FileList(*merged) + " has no current-context");
    }
    auto context_it = merged->contexts.find(context_name);
    if (context_it == merged->contexts.end()) {
      return Status::NotFound("context \"" + context_name + "\" not found in " + FileList(*merged));
    }
    const YAML::Node& context = context_it->second.node;
    std::string cluster_name = Str(context, "cluster");
    auto cluster_it = merged->clusters.find(cluster_name);
    if (cluster_it == merged->clusters.end()) {
      return Status::NotFound("cluster \"" + cluster_name + "\" of context \"" + context_name +
                              "\" not found in " + FileList(*merged));
    }
    const YAML::Node& cluster = cluster_it->second.node;
    const std::string& cluster_dir = cluster_it->second.base_dir;

    ClusterConfig config;
    if (Status s = ParseServerUrl(Str(cluster, "server"), config); !s.ok()) return s;
    TlsOptions& tls = config.endpoint.tls;
    tls.insecure_skip_verify =
        cluster["insecure-skip-tls-verify"] && cluster["insecure-skip-tls-verify"].as<bool>();
    tls.server_name = Str(cluster, "tls-server-name");
    config.proxy_url = Str(cluster, "proxy-url");
    if (std::string data = Str(cluster, "certificate-authority-data"); !data.empty()) {
      auto ca = Decode64(data, "certificate-authority-data");
      if (!ca.ok()) return ca.status();
      tls.ca_data = *ca;
    }
    tls.ca_file = Resolve(Str(cluster, "certificate-authority"), cluster_dir);
    std::string user_name = Str(context, "user");
    if (auto user_it = merged->users.find(user_name); user_it != merged->users.end()) {
      const YAML::Node& user = user_it->second.node;
      const std::string& user_dir = user_it->second.base_dir;
      config.token = Str(user, "token");
      config.token_file = Resolve(Str(user, "tokenFile"), user_dir);
      tls.cert_file = Resolve(Str(user, "client-certificate"), user_dir);
      tls.key_file = Resolve(Str(user, "client-key"), user_dir);
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
      if (user["exec"]) {
        auto exec = ExecOf(user["exec"], user_name, user_dir);
        if (!exec.ok()) return exec.status();
        exec->cluster_json = ExecClusterJson(cluster, config);
        config.exec = std::move(*exec);
      }
    }
    if (std::string ns = Str(context, "namespace"); !ns.empty()) config.namespace_ = ns;
    return config;
  } catch (const std::exception& e) {
    return Status::BadRequest("invalid kubeconfig " + FileList(*merged) + ": " + e.what());
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
