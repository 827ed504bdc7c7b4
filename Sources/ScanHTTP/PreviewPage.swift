/// The live page (`GET /`), served by scand itself: one HTML file with its script inline, nothing fetched
/// from elsewhere and no build step. It draws the picture and the overlays on a canvas the size of the
/// window, with the rules of ``PreviewGeometry`` ported to JavaScript (gravity, orientation, mirroring).
enum PreviewPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width,initial-scale=1">
        <title>scand</title>
        <style>
        html,body{margin:0;height:100%;overflow:hidden;background:#000;color:#eee;font:13px system-ui,sans-serif}
        canvas{position:fixed;left:0;top:0;width:100vw;height:100vh;display:block;cursor:crosshair}
        #status{position:fixed;left:0;right:0;bottom:0;padding:3px 8px;background:rgba(0,0,0,.55);white-space:nowrap;overflow:hidden;text-overflow:ellipsis;pointer-events:none}
        #events{position:fixed;left:0;bottom:22px;max-width:60vw;padding:2px 8px;background:rgba(0,0,0,.45);font:11px monospace;white-space:pre;overflow:hidden;pointer-events:none}
        .hidden{display:none}
        </style>
        </head>
        <body>
        <canvas id="view"></canvas>
        <div id="events"></div>
        <div id="status">connecting…</div>
        <script>
        "use strict";
        // scand's live page: the camera picture scaled into the window, with every code outlined through its
        // corners and every face box turned by its roll, placed with the rules of scand's PreviewGeometry
        // (AVCaptureVideoPreviewLayer): gravity, orientation, mirroring. The window is the view.
        // Options in the URL: ?videoGravity=resize|resizeAspect|resizeAspectFill&orientation=…&mirrored=1
        // Token (scand run --http-token FILE): open /#token=TOKEN; the fragment never leaves the browser.
        // Several cameras (issue 49): / shows them all, each in a frame of /cameras/NAME/ (this page again, whose
        // relative requests reach that camera's stream, state and rect of interest).
        const cameraPage = /\/cameras\/[^/]+\/$/.test(location.pathname);
        const query = new URLSearchParams(location.search);
        const fragment = new URLSearchParams(location.hash.slice(1));
        const token = fragment.get("token");
        const authHeaders = token ? {Authorization: "Bearer " + token} : {};
        const S = window.scand = {
          gravity: query.get("videoGravity"), orientation: query.get("orientation"),
          mirrored: query.has("mirrored") ? /^(1|true|yes)$/.test(query.get("mirrored")) : null,
          image: null, width: 0, height: 0, frame: null, objects: [], framesShown: 0, latencies: [],
          events: [], eventCount: 0, state: null, drag: null, error: null, grid: null,
          overlays: query.get("overlays") !== "0"
        };
        // Shows or hides everything drawn over the picture (outlines, labels, status, events): ?overlays=0.
        S.setOverlays = on => {
          S.overlays = on;
          for (const id of ["status", "events"]) document.getElementById(id).classList.toggle("hidden", !on);
          draw();
        };
        const canvas = document.getElementById("view");
        const ctx = canvas.getContext("2d");
        const ROTATION = {landscapeRight: 0, portrait: 90, landscapeLeft: 180, portraitUpsideDown: 270};

        // --- PreviewGeometry, as in Sources/ScanCore/PreviewGeometry.swift ---
        function geometry(viewW, viewH) {
          const o = S.orientation || "landscapeRight", g = S.gravity || "resizeAspect";
          const swap = ROTATION[o] % 180 !== 0;
          const cw = swap ? S.height : S.width, ch = swap ? S.width : S.height;
          let r;
          if (g === "resize") r = {x: 0, y: 0, w: viewW, h: viewH};
          else {
            const sx = viewW / cw, sy = viewH / ch;
            const s = g === "resizeAspectFill" ? Math.max(sx, sy) : Math.min(sx, sy);
            r = {x: (viewW - cw * s) / 2, y: (viewH - ch * s) / 2, w: cw * s, h: ch * s};
          }
          return {picture: r, orientation: o, mirrored: !!S.mirrored, gravity: g};
        }
        function viewPoint(p, geo) {   // normalized device point -> view point (CSS px)
          let x, y;
          switch (geo.orientation) {
            case "portrait": x = 1 - p.y; y = p.x; break;
            case "landscapeLeft": x = 1 - p.x; y = 1 - p.y; break;
            case "portraitUpsideDown": x = p.y; y = 1 - p.x; break;
            default: x = p.x; y = p.y;
          }
          if (geo.mirrored) x = 1 - x;
          return {x: geo.picture.x + x * geo.picture.w, y: geo.picture.y + y * geo.picture.h};
        }

        // --- drawing ---
        function draw() {
          const vw = window.innerWidth, vh = window.innerHeight, dpr = window.devicePixelRatio || 1;
          if (canvas.width !== Math.round(vw * dpr) || canvas.height !== Math.round(vh * dpr)) {
            canvas.width = Math.round(vw * dpr); canvas.height = Math.round(vh * dpr);
          }
          ctx.setTransform(1, 0, 0, 1, 0, 0);
          ctx.fillStyle = "#000"; ctx.fillRect(0, 0, canvas.width, canvas.height);
          if (!S.image) return;
          const geo = geometry(vw, vh);
          // The picture: the affine map that sends frame pixels to view points (three corners define it).
          const p0 = viewPoint({x: 0, y: 0}, geo), p1 = viewPoint({x: 1, y: 0}, geo), p2 = viewPoint({x: 0, y: 1}, geo);
          ctx.setTransform(dpr * (p1.x - p0.x) / S.width, dpr * (p1.y - p0.y) / S.width,
                           dpr * (p2.x - p0.x) / S.height, dpr * (p2.y - p0.y) / S.height, dpr * p0.x, dpr * p0.y);
          ctx.drawImage(S.image, 0, 0, S.width, S.height);
          ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
          if (S.overlays) for (const o of S.objects) drawObject(o, geo);
          if (S.drag) {
            ctx.strokeStyle = "#4af"; ctx.lineWidth = 2; ctx.setLineDash([6, 4]);
            ctx.strokeRect(S.drag.x0, S.drag.y0, S.drag.x1 - S.drag.x0, S.drag.y1 - S.drag.y0);
            ctx.setLineDash([]);
          }
        }
        function outline(o) {          // normalized device points of the box to draw
          if (o.type !== "face" && o.corners && o.corners.length >= 3) return o.corners;
          const b = o.bounds, W = S.width, H = S.height;
          const box = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]];
          const a = (o.rollAngle || 0) * Math.PI / 180, c = Math.cos(a), s = Math.sin(a);
          const cx = (b.x + b.width / 2) * W, cy = (b.y + b.height / 2) * H;
          return box.map(([x, y]) => {   // turned by the roll in frame pixels (clockwise as displayed)
            const dx = x * W - cx, dy = y * H - cy;
            return {x: (cx + dx * c - dy * s) / W, y: (cy + dx * s + dy * c) / H};
          });
        }
        function drawObject(o, geo) {
          const pts = outline(o).map(p => viewPoint(p, geo));
          const face = o.type === "face";
          ctx.strokeStyle = face ? "#ff8c00" : "#00e640"; ctx.lineWidth = 3; ctx.lineJoin = "round";
          ctx.beginPath(); pts.forEach((p, i) => i ? ctx.lineTo(p.x, p.y) : ctx.moveTo(p.x, p.y)); ctx.closePath(); ctx.stroke();
          const label = face ? "face " + (o.faceID ?? "") + (o.rollAngle ? " roll " + Math.round(o.rollAngle) + "°" : "")
                             : o.type + ": " + (o.value ?? "(binary)");
          const top = pts.reduce((a, p) => p.y < a.y ? p : a, pts[0]);
          ctx.font = "13px system-ui,sans-serif";
          const w = ctx.measureText(label).width;
          ctx.fillStyle = "rgba(0,0,0,.6)"; ctx.fillRect(top.x - 2, top.y - 19, w + 6, 17);
          ctx.fillStyle = face ? "#ffb347" : "#7dff9e"; ctx.fillText(label, top.x + 1, top.y - 6);
        }
        let drawPending = false;
        function requestDraw() { if (!drawPending) { drawPending = true; requestAnimationFrame(() => { drawPending = false; draw(); }); } }
        window.addEventListener("resize", requestDraw);

        // --- the MJPEG stream, read with fetch so the token can go in a header ---
        function indexOf(buf, pat, from) {
          outer: for (let i = from || 0; i <= buf.length - pat.length; i++) {
            for (let j = 0; j < pat.length; j++) if (buf[i + j] !== pat[j]) continue outer;
            return i;
          }
          return -1;
        }
        const CRLF2 = [13, 10, 13, 10];
        const decoder = new TextDecoder();
        async function readStream() {
          for (;;) {
            try {
              const res = await fetch("stream.mjpg", {headers: authHeaders, cache: "no-store"});
              if (!res.ok) throw new Error("stream.mjpg: HTTP " + res.status);
              const reader = res.body.getReader();
              let buf = new Uint8Array(0);
              for (;;) {
                const {value, done} = await reader.read();
                if (done) break;
                const joined = new Uint8Array(buf.length + value.length); joined.set(buf); joined.set(value, buf.length); buf = joined;
                for (;;) {
                  const end = indexOf(buf, CRLF2, 0);
                  if (end < 0) break;
                  const headers = {};
                  for (const line of decoder.decode(buf.subarray(0, end)).split("\r\n")) {
                    const i = line.indexOf(":"); if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
                  }
                  const length = parseInt(headers["content-length"], 10);
                  if (!(length >= 0)) { buf = buf.subarray(end + 4); continue; }
                  if (buf.length < end + 4 + length) break;
                  const jpeg = buf.slice(end + 4, end + 4 + length);
                  buf = buf.subarray(end + 4 + length);
                  await showFrame(jpeg, headers);
                }
              }
            } catch (e) { S.error = String(e); }
            updateStatus();
            await new Promise(r => setTimeout(r, 1000));
          }
        }
        async function showFrame(jpeg, h) {
          if (S.freeze) return;        // scand.freeze = true keeps the frame shown (for screenshots)
          const bitmap = await createImageBitmap(new Blob([jpeg], {type: "image/jpeg"}));
          if (S.image && S.image.close) S.image.close();
          S.image = bitmap; S.width = bitmap.width; S.height = bitmap.height;
          S.frame = parseInt(h["x-scand-frame"], 10);
          try { S.objects = JSON.parse(decoder.decode(Uint8Array.from(atob(h["x-scand-objects"] || "W10="), c => c.charCodeAt(0)))); }
          catch (e) { S.objects = []; }
          const ts = parseFloat(h["x-scand-timestamp"]);
          if (ts > 0) { S.latencies.push(Date.now() / 1000 - ts); if (S.latencies.length > 300) S.latencies.shift(); }
          S.framesShown++;
          S.error = null;
          draw();
        }

        // --- events over the WebSocket: the same lines as the Unix socket ---
        function connectEvents() {
          const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/events";
          const ws = token ? new WebSocket(url, ["scand-token." + token]) : new WebSocket(url);
          // A camera's page follows its own camera's events only.
          ws.onopen = () => {
            if (cameraPage && S.state && S.state.camera) ws.send(JSON.stringify({subscribe: {cameras: [S.state.camera]}}));
          };
          ws.onmessage = m => {
            let e; try { e = JSON.parse(m.data); } catch (x) { return; }
            if (cameraPage && e.camera !== undefined && S.state && e.camera !== S.state.camera) return;
            S.eventCount++;
            if (e.event === "metadata") return;      // drawn from the stream's own frames
            S.events.push(e); if (S.events.length > 50) S.events.shift();
            const shown = S.events.slice(-3).map(e => {
              const what = e.event === "device" ? e.kind + " " + e.device
                         : (e.type || "") + (e.value !== undefined ? " " + e.value : "") + (e.faceID !== undefined ? " #" + e.faceID : "");
              return (e.event + " " + what).slice(0, 90);
            });
            document.getElementById("events").textContent = shown.join("\n");
          };
          ws.onclose = () => setTimeout(connectEvents, 1000);
        }

        // --- status line: device, resolution, fps, dropped frames, clients ---
        let last = null;
        async function pollState() {
          try {
            const res = await fetch("state", {headers: authHeaders, cache: "no-store"});
            if (!res.ok) throw new Error("state: HTTP " + res.status);
            const st = await res.json();
            const now = performance.now();
            if (last) S.fps = (st.frames.processed - last.processed) * 1000 / (now - last.t);
            last = {processed: st.frames.processed, t: now};
            S.state = st;
            if (S.gravity === null) S.gravity = st.preview.videoGravity;
            if (S.orientation === null) S.orientation = st.preview.orientation;
            if (S.mirrored === null) S.mirrored = st.preview.mirrored;
          } catch (e) { S.error = String(e); }
          updateStatus();
        }
        function updateStatus() {
          const st = S.state, el = document.getElementById("status");
          if (!st) { el.textContent = S.error || "connecting…"; return; }
          const lat = S.latencies.length ? [...S.latencies].sort((a, b) => a - b)[S.latencies.length >> 1] : null;
          el.textContent = [
            (st.cameras && st.cameras.length > 1 || cameraPage ? st.camera + ": " : "") +
              (st.device || "no source yet") + " (" + st.state + ")",
            st.format ? st.format.width + "×" + st.format.height : "no frame yet",
            (S.fps || 0).toFixed(1) + " fps",
            "dropped " + st.frames.dropped,
            "clients: socket " + st.clients.socket + ", websocket " + st.clients.websocket + ", stream " + st.clients.stream,
            lat !== null ? "latency " + Math.round(lat * 1000) + " ms" : "",
            st.rectOfInterestEditable ? "drag to set the rect of interest" : "",
            S.error || ""
          ].filter(Boolean).join(" · ");
        }

        // --- drag a rectangle: the rect of interest (only when scand runs with --http-token) ---
        canvas.addEventListener("pointerdown", e => {
          if (!(S.state && S.state.rectOfInterestEditable)) return;
          S.drag = {x0: e.clientX, y0: e.clientY, x1: e.clientX, y1: e.clientY};
          canvas.setPointerCapture(e.pointerId);
        });
        canvas.addEventListener("pointermove", e => { if (S.drag) { S.drag.x1 = e.clientX; S.drag.y1 = e.clientY; requestDraw(); } });
        canvas.addEventListener("pointerup", async e => {
          const d = S.drag; S.drag = null; requestDraw();
          if (!d) return;
          const rect = {x: Math.min(d.x0, d.x1), y: Math.min(d.y0, d.y1), width: Math.abs(d.x1 - d.x0), height: Math.abs(d.y1 - d.y0)};
          if (rect.width < 4 || rect.height < 4) return;
          const geo = geometry(window.innerWidth, window.innerHeight);
          const res = await fetch("rect-of-interest", {method: "POST", headers: {...authHeaders, "Content-Type": "application/json"},
            body: JSON.stringify({rect, viewSize: {width: window.innerWidth, height: window.innerHeight},
                                  videoGravity: geo.gravity, orientation: geo.orientation, mirrored: geo.mirrored})});
          S.error = res.ok ? null : "rect of interest: " + (await res.text());
          updateStatus();
        });

        // --- several cameras: a grid of their pages, rebuilt when a reload adds or removes one ---
        function cameraNames(st) { return (st && st.cameras || []).map(c => c.name).filter(n => n !== undefined); }
        function showGrid(names) {
          S.grid = names;
          document.body.textContent = "";
          const cols = Math.ceil(Math.sqrt(names.length)), rows = Math.ceil(names.length / cols);
          Object.assign(document.body.style, {display: "grid", gap: "2px", gridTemplateColumns: "repeat(" + cols + ",1fr)",
                                              gridTemplateRows: "repeat(" + rows + ",1fr)", height: "100vh"});
          for (const name of names) {
            const f = document.createElement("iframe");
            f.src = "cameras/" + encodeURIComponent(name) + "/" + location.search + location.hash;
            f.title = name; f.dataset.camera = name;
            Object.assign(f.style, {border: "0", width: "100%", height: "100%", display: "block"});
            document.body.appendChild(f);
          }
        }
        // The pages of the grid, with their state (window.scand of each), for scripts and tests.
        S.views = () => Array.from(document.querySelectorAll("iframe")).map(f => f.contentWindow.scand).filter(Boolean);
        async function pollGrid() {
          try {
            const res = await fetch("state", {headers: authHeaders, cache: "no-store"});
            if (res.ok) { const names = cameraNames(await res.json()); if (names.join("/") !== S.grid.join("/")) showGrid(names); }
          } catch (e) { /* the frames show their own errors */ }
        }

        S.setOverlays(S.overlays);
        (async () => {
          // One camera or several: decided on the first answer of /state.
          while (!S.state) { await pollState(); if (!S.state) await new Promise(r => setTimeout(r, 1000)); }
          const names = cameraNames(S.state);
          if (!cameraPage && names.length > 1) { showGrid(names); setInterval(pollGrid, 3000); return; }
          readStream(); connectEvents();
          setInterval(pollState, 1000);
        })();
        </script>
        </body>
        </html>
        """#
}
