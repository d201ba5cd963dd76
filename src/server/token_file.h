// TokenFile: kube-apiserver's static token file (--token-auth-file): CSV records of
// "token,user name,uid[,groups]", read as Go's encoding/csv reads them (quoted fields, "" inside
// quotes, CRLF, a varying number of fields, nothing trimmed, no comments). Column 4 is split on
// "," (more than one group needs quotes: t,alice,42,"g1,g2"); columns after it are ignored. A
// record of fewer than 3 fields, or a CSV syntax error, is an error that stops the server from
// starting; an empty token is skipped and a repeated token's later record wins (both with a
// warning). Read once at start: a change needs a restart, as in kube-apiserver.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "server/user_info.h"
#include "tenure/status.h"

namespace tenure::server {

struct TokenFile {
  std::map<std::string, UserInfo> users;  // by token
  std::vector<std::string> warnings;      // skipped and repeated records, for the log
};

// The records of `text`; `path` names the file in messages.
Result<TokenFile> ParseTokenFile(std::string_view text, const std::string& path);
Result<TokenFile> ReadTokenFile(const std::string& path);

}  // namespace tenure::server
