// The dashboard's sign-in: the token goes into a cookie for the dashboard's path (a page load
// cannot carry an Authorization header). Under `tenure dashboard` a token in the address
// (?token=, as it prints it) is taken the same way; it is removed from the address.
"use strict";
(function () {
  const cookieName = "tenure-dashboard-token";
  const base = location.pathname.replace(/\/(index\.html)?$/, "") || "/";
  function signIn(token) {
    let cookie = cookieName + "=" + encodeURIComponent(token) + "; path=" + base + "; SameSite=Strict";
    if (location.protocol === "https:") cookie += "; Secure";
    document.cookie = cookie;
    location.replace(base + "/" + location.hash);
  }
  const params = new URLSearchParams(location.search);
  if (params.has("token")) {
    // Only where the address is how the token is handed out (`tenure dashboard`): elsewhere a
    // link could sign a visitor in as someone else. The token leaves the address either way.
    if (document.body.dataset.tokenLinks === "on") {
      signIn(params.get("token"));
      return;
    }
    history.replaceState(null, "", base + "/" + location.hash);
  }
  if (document.body.dataset.refused === "refused") {
    document.getElementById("refused").hidden = false;
    // The refused cookie would be sent again: drop it.
    document.cookie = cookieName + "=; path=" + base + "; max-age=0; SameSite=Strict";
  }
  document.getElementById("login").addEventListener("submit", function (event) {
    event.preventDefault();
    const token = document.getElementById("token").value.trim();
    if (token) signIn(token);
  });
})();
