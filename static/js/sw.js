// The service worker (served at /sw.js by bourre_site/pwa.py, which puts
// self.BOURRE = {release, shell, offline} before this file).
//
// - Install: cache the app shell (styles, scripts, icons) and the offline page, in a
//   cache named after the release; a new release installs a new cache and, once active,
//   deletes the old ones.
// - Static files: from the cache, else from the network.
// - Pages: always from the network (the books must be current); when it cannot be
//   reached, the offline page. Everything else (htmx requests, polls, posts) goes to the
//   network untouched: the pages handle their failures themselves (app.js, queue.js).
/* global self, caches */
"use strict";
var CONFIG = self.BOURRE || { release: "dev", shell: [], offline: "/offline/" };
var CACHE = "bourre-" + CONFIG.release;

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(CACHE).then(function (cache) {
      return cache.addAll(CONFIG.shell.concat([CONFIG.offline]));
    }).then(function () { return self.skipWaiting(); })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        return name.indexOf("bourre-") === 0 && name !== CACHE;
      }).map(function (name) { return caches.delete(name); }));
    }).then(function () { return self.clients.claim(); })
  );
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(
      fetch(request).catch(function () {
        return caches.open(CACHE).then(function (cache) { return cache.match(CONFIG.offline); });
      })
    );
    return;
  }
  if (url.pathname.indexOf("/static/") === 0) {
    event.respondWith(
      caches.open(CACHE).then(function (cache) {
        return cache.match(request).then(function (hit) {
          return hit || fetch(request).then(function (response) {
            if (response.ok) cache.put(request, response.clone());
            return response;
          });
        });
      })
    );
  }
});
