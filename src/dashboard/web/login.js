// The dashboard's sign-in: the token goes into a cookie for the dashboard's path (a page load
// cannot carry an Authorization header); a token in the address (?token=, as `tenure dashboard`
// prints it) is taken the same way and removed from the address.
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
    signIn(params.get("token"));
    return;
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
