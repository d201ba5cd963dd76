// Proxy choice as client-go makes it: proxy-url first, then HTTPS_PROXY / HTTP_PROXY unless
// NO_PROXY names the host or the host is loopback; proxy URLs that cannot be used are refused.
#include "client/proxy.h"

#include <gtest/gtest.h>

#include <map>

namespace tenure::client {
namespace {

GetEnv Vars(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

Endpoint Https(const std::string& host, uint16_t port = 6443) {
  Endpoint e;
  e.host = host;
  e.port = port;
  e.tls.enabled = true;
  return e;
}

TEST(NoProxyTest, NamesSuffixesAddressesRangesAndPorts) {
  EXPECT_TRUE(NoProxyMatches("example.com", "example.com", 443));
  EXPECT_TRUE(NoProxyMatches("example.com", "api.example.com", 443));
  EXPECT_FALSE(NoProxyMatches("example.com", "badexample.com", 443));
  EXPECT_TRUE(NoProxyMatches(".example.com", "api.example.com", 443));
  EXPECT_FALSE(NoProxyMatches(".example.com", "example.com", 443));
  EXPECT_TRUE(NoProxyMatches(" other.org , EXAMPLE.com", "Api.Example.com", 443));
  EXPECT_TRUE(NoProxyMatches("10.0.0.0/8", "10.1.2.3", 443));
  EXPECT_FALSE(NoProxyMatches("10.0.0.0/8", "11.1.2.3", 443));
  EXPECT_TRUE(NoProxyMatches("fd00::/8", "fd12::1", 443));
  EXPECT_TRUE(NoProxyMatches("192.168.1.5", "192.168.1.5", 443));
  EXPECT_TRUE(NoProxyMatches("example.com:6443", "example.com", 6443));
  EXPECT_FALSE(NoProxyMatches("example.com:6443", "example.com", 443));
  EXPECT_TRUE(NoProxyMatches("*", "anything", 1));
  EXPECT_TRUE(NoProxyMatches("*.example.com", "api.example.com", 443));
  EXPECT_FALSE(NoProxyMatches("*.example.com", "example.com", 443));
  EXPECT_TRUE(NoProxyMatches("[2001:db8::1]:6443", "2001:db8::1", 6443));
  EXPECT_FALSE(NoProxyMatches("[2001:db8::1]:6443", "2001:db8::1", 443));
  EXPECT_TRUE(NoProxyMatches("2001:db8::1", "2001:db8::1", 443));
  // A range whose length is not a number matches nothing, not everything.
  EXPECT_FALSE(NoProxyMatches("10.0.0.0/abc", "192.168.1.1", 443));
  EXPECT_FALSE(NoProxyMatches("10.0.0.0/", "192.168.1.1", 443));
  EXPECT_FALSE(NoProxyMatches("", "example.com", 443));
}

TEST(ChooseProxyTest, TheKubeconfigsProxyUrlWinsEvenForLoopback) {
  auto p = ChooseProxy(Https("127.0.0.1"), "http://user:secret@proxy.corp:3128",
                       Vars({{"HTTPS_PROXY", "http://other:1"}}));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_TRUE(p->has_value());
  EXPECT_EQ((*p)->host, "proxy.corp");
  EXPECT_EQ((*p)->port, 3128);
  EXPECT_EQ((*p)->authorization, "Basic dXNlcjpzZWNyZXQ=");
  auto escaped = ChooseProxy(Https("a"), "http://u:p%40ss@proxy:3128", Vars({}));
  ASSERT_TRUE(escaped.ok() && escaped->has_value());
  EXPECT_EQ((*escaped)->authorization, "Basic dTpwQHNz");  // u:p@ss
  EXPECT_EQ(ChooseProxy(Https("a"), "http://u:p%4@proxy:3128", Vars({})).status().reason(),
            Reason::kBadRequest);
}

TEST(ChooseProxyTest, TheEnvironmentAppliesUnlessNoProxyOrLoopback) {
  auto env = Vars({{"https_proxy", "proxy.corp:8080"}, {"NO_PROXY", ".internal"}});
  auto used = ChooseProxy(Https("api.example.com"), "", env);
  ASSERT_TRUE(used.ok() && used->has_value());
  EXPECT_EQ((*used)->host, "proxy.corp");
  EXPECT_EQ((*used)->port, 8080);
  EXPECT_FALSE(ChooseProxy(Https("kube.internal"), "", env)->has_value());
  EXPECT_FALSE(ChooseProxy(Https("localhost"), "", env)->has_value());
  EXPECT_FALSE(ChooseProxy(Https("127.0.0.9"), "", env)->has_value());
  EXPECT_FALSE(ChooseProxy(Https("::1"), "", env)->has_value());
  Endpoint plain = Https("api.example.com");
  plain.tls.enabled = false;  // an http server takes HTTP_PROXY, which is not set
  EXPECT_FALSE(ChooseProxy(plain, "", env)->has_value());
  EXPECT_FALSE(ChooseProxy(Https("api.example.com"), "", Vars({}))->has_value());
}

TEST(ChooseProxyTest, UnusableProxyUrlsAreRefusedNamingTheirSource) {
  auto socks = ChooseProxy(Https("a"), "socks5://proxy:1080", Vars({}));
  EXPECT_EQ(socks.status().reason(), Reason::kBadRequest);
  EXPECT_EQ(
      socks.status().message(),
      "proxy-url \"socks5://proxy:1080\": only http:// proxies are supported (socks5 is not)");
  auto bad_port = ChooseProxy(Https("a"), "", Vars({{"HTTPS_PROXY", "http://proxy:99999"}}));
  EXPECT_NE(bad_port.status().message().find("HTTPS_PROXY \"http://proxy:99999\""),
            std::string::npos);
}

}  // namespace
}  // namespace tenure::client
