// The catalogue of `scand run`'s settings (see Setting.swift): sources, outputs, MQTT, HTTP, types, presence, preview.

extension Setting {
    // MARK: Sources

    public static let input = Setting(
        "input", flag: "input", valueName: "file",
        help:
            "Replay this file (Y4M, video, image) or '-' for Y4M on stdin; or read a network camera's rtsp://, http:// or https:// stream (live, reconnected when it drops)."
    )
    public static let device = Setting(
        "device", flag: "device", valueName: "path-or-id",
        help: "Capture from this V4L2 device: a node (/dev/video0) or a /dev/v4l/by-id name. See 'scand devices'.")
    public static let cameras = Setting(
        "cameras", flag: "camera", valueName: "name=source",
        help:
            "A camera of a multi-camera run (repeatable): NAME (letters, digits, - and _) and SOURCE, a V4L2 device, a network camera's rtsp://, http:// or https:// stream (credentials from SCAND_CAMERA_CREDENTIALS_NAME or its _FILE, never in the URL), a file or '-' for stdin. Every event carries \"camera\": NAME. Config file: \"cameras\": {NAME: {\"device\" or \"input\", and its own settings}}."
    )
    public static let cameraCa = Setting(
        "cameraCa", flag: "camera-ca", valueName: "file",
        help:
            "PEM file of the certificates that https:// and rtsps:// cameras' servers are checked against (default: the system's CAs). A camera whose certificate does not check out is not read: it stays waiting. Top level only: one file for every camera."
    )
    public static let pacing = Setting(
        "pacing", flag: "pacing",
        help: "Replay files at their frame rate (default; --no-pacing: as fast as possible, no frame dropped).")
    public static let loop = Setting("loop", flag: "loop", help: "Start the file again when it ends (default off).")
    public static let exitAtEnd = Setting(
        "exitAtEnd", flag: "exit-at-end",
        help: "Exit when the file or stdin ends (the default for files; --no-exit-at-end is --keep-running).")
    public static let keepRunning = Setting(
        "keepRunning", flag: "keep-running",
        help: "When the file or stdin ends, keep serving socket clients until stopped (SIGTERM/SIGINT).")
    public static let failFast = Setting(
        "failFast", flag: "fail-fast",
        help:
            "With --device: exit 2 at once when the device is absent (default: report 'waiting' and start when it appears)."
    )
    public static let maxPixels = Setting(
        "maxPixels", flag: "max-pixels", valueName: "n",
        bounds: .range(1...(1 << 32)),
        help:
            "Refuse an image, Y4M frame or video frame larger than this many pixels (width × height), before decoding it (default \(DecoderLimits.defaultMaxPixels))."
    )

    // MARK: Outputs

    public static let stdout = Setting(
        "stdout", flag: "stdout", help: "Write events to stdout as JSON lines (default off unless --raw/--oneshot).")
    public static let socket = Setting(
        "socket.path", flag: "socket", valueName: "path", help: "Serve events on this Unix socket (created 0660).")
    public static let socketGroup = Setting(
        "socket.group", flag: "socket-group", valueName: "group", help: "Group owning the socket file (name or number)."
    )
    public static let metadata = Setting(
        "metadata", flag: "metadata",
        help: "Publish a metadata event per frame (default; --no-metadata: only appeared/lost/device).")
    public static let clientQueue = Setting(
        "socket.clientQueue", flag: "client-queue", valueName: "n",
        bounds: .range(1...1_000_000),
        help: "Events queued per slow socket client before its oldest are dropped (default 1024).")
    public static let clientStallTimeout = Setting(
        "socket.stallTimeout", flag: "client-stall-timeout", aliases: ["clientStallTimeout"], valueName: "s",
        bounds: .above(0, atMost: 86_400, unit: "seconds"),
        help: "Disconnect a socket client stuck this many seconds while dropping events (default 10).")
    public static let stdoutQueue = Setting(
        "stdoutQueue", flag: "stdout-queue", valueName: "n",
        bounds: .range(1...1_000_000),
        help:
            "Events kept waiting for a slow stdout reader before its oldest are dropped with an 'overflow' line (default 1024); stdout never slows the pipeline or the socket clients."
    )
    public static let raw = Setting(
        "raw", flag: "raw",
        help:
            "Print values only, one per line, no JSON (as zbarimg --raw). Faces are not printed; a binary payload is skipped with a note on stderr."
    )
    public static let rawBytes = Setting(
        "rawBytes", flag: "raw-bytes",
        help: "With --raw (implied): print each code's exact payload bytes, then a newline, binary payloads included.")
    public static let oneshot = Setting(
        "oneshot", flag: "oneshot",
        help: "Exit 0 after the first object of --types (with --raw: the first value printed).")
    public static let timeout = Setting(
        "timeout", flag: "timeout", valueName: "seconds",
        bounds: .above(0, atMost: 31_536_000, unit: "seconds"),
        help:
            "With --oneshot: give up after this many seconds without an object (exit \(ExitStatus.nothingFound), a warning on stderr); default: wait for ever."
    )
    public static let logLevel = Setting(
        "logLevel", flag: "log-level", valueName: "level",
        help: "Log level on stderr: trace, debug, info, notice, warning (default), error, critical.")
    public static let socketSendBuffer = Setting(
        "socket.sendBuffer", flag: nil, bounds: .range(1024...(64 << 20), unit: "bytes"),
        help: "Bytes of the kernel send buffer per socket client (SO_SNDBUF).")

    // MARK: MQTT (publish events to a broker)

    public static let mqtt = Setting(
        "mqtt.url", flag: "mqtt", valueName: "url",
        help: "Publish events to this MQTT broker: mqtt://HOST:PORT (or tcp://HOST:PORT), or mqtts://HOST:PORT for TLS."
    )
    public static let mqttCa = Setting(
        "mqtt.ca", flag: "mqtt-ca", valueName: "file",
        help: "PEM file of the CA that signed the broker's certificate (mqtts://; default: the system's CAs).")
    public static let mqttCert = Setting(
        "mqtt.cert", flag: "mqtt-cert", valueName: "file", help: "PEM client certificate (with --mqtt-key).")
    public static let mqttKey = Setting(
        "mqtt.key", flag: "mqtt-key", valueName: "file", help: "PEM client key (with --mqtt-cert).")
    public static let mqttUsername = Setting(
        "mqtt.username", flag: "mqtt-username", valueName: "name", help: "MQTT username.")
    public static let mqttPasswordFile = Setting(
        "mqtt.passwordFile", flag: "mqtt-password-file", valueName: "file",
        help: "Read the MQTT password from this file (first line).")
    public static let mqttPasswordEnv = Setting(
        "mqtt.passwordEnv", flag: "mqtt-password-env", valueName: "name",
        help: "Read the MQTT password from this environment variable.")
    public static let mqttId = Setting(
        "mqtt.id", flag: "mqtt-id", valueName: "id",
        help:
            "This scand's id in topics and the client id (default: HOSTNAME-DEVICE, the device's /dev/v4l/by-id name or the input's file name)."
    )
    public static let mqttTopicPrefix = Setting(
        "mqtt.topicPrefix", flag: "mqtt-topic-prefix", valueName: "prefix",
        help:
            "Topic prefix (default scand/<id>): events on PREFIX/events, retained plain online/offline on PREFIX/availability, JSON status on PREFIX/status, codes and faces on PREFIX/tag and PREFIX/state/… (docs/fleet.md)."
    )
    public static let mqttQos = Setting(
        "mqtt.qos", flag: "mqtt-qos", valueName: "n", bounds: .oneOf([0, 1, 2]),
        help: "MQTT QoS for events: 0, 1 (default, at least once) or 2.")
    public static let mqttKindTopics = Setting(
        "mqtt.kindTopics", flag: "mqtt-kind-topics",
        help: "Also publish each event on PREFIX/<event> (appeared, lost, metadata, device).")
    public static let mqttMetadata = Setting(
        "mqtt.metadata", flag: "mqtt-metadata",
        help:
            "Also publish the per-frame metadata events to the broker (default off: about 30 messages a second per camera; appeared, lost and device events always go)."
    )
    public static let mqttDiscovery = Setting(
        "mqtt.discovery", flag: "mqtt-discovery",
        help:
            "Publish Home Assistant MQTT discovery configs (retained): a tag scanner, a face binary sensor and a last-code sensor (default off; off also removes this scand's earlier configs)."
    )
    public static let mqttDiscoveryPrefix = Setting(
        "mqtt.discoveryPrefix", flag: "mqtt-discovery-prefix", valueName: "prefix",
        help: "Home Assistant's discovery prefix (default homeassistant).")
    public static let mqttQueue = Setting(
        "mqtt.queue", flag: "mqtt-queue", valueName: "n",
        bounds: .range(1...10_000_000),
        help:
            "Messages kept for the broker while it is slow or away (default 10000); then the oldest go and an 'overflow' event says how many."
    )
    public static let mqttReconnectMax = Setting(
        "mqtt.reconnectMax", flag: "mqtt-reconnect-max", valueName: "s",
        bounds: .above(0, atMost: 3600, unit: "seconds"),
        help: "Longest wait between reconnection attempts, in seconds (default 10; waits double from 0.25 s).")
    public static let mqttSpool = Setting(
        "mqtt.spool", flag: "mqtt-spool", valueName: "dir",
        help:
            "Write every message to this directory until the broker acknowledges it; what is left after a stop or a crash is sent first at the next start."
    )
    public static let mqttSpoolBytes = Setting(
        "mqtt.spoolBytes", flag: "mqtt-spool-bytes", valueName: "n",
        bounds: .atLeast(4096),
        help:
            "Bytes of spool files kept at most (default 67108864); then the oldest go and an 'overflow' event says how many."
    )
    public static let mqttQueueBytes = Setting(
        "mqtt.queueBytes", flag: nil, bounds: .range(4096...(4 << 30)), help: "Bytes kept for the broker at most.")
    public static let mqttInFlight = Setting(
        "mqtt.inFlight", flag: nil, bounds: .range(1...65535), help: "Unacknowledged messages at most.")
    public static let mqttKeepalive = Setting(
        "mqtt.keepalive", flag: nil, bounds: .range(5...65535, unit: "seconds"), help: "MQTT keepalive, in seconds.")
    public static let mqttConnectTimeout = Setting(
        "mqtt.connectTimeout", flag: nil,
        bounds: .above(0, atMost: 3600, unit: "seconds"),
        help: "Seconds a connection attempt may take (TCP, TLS, CONNACK) before it is given up and retried.")
    public static let mqttSpoolSync = Setting(
        "mqtt.spoolSync", flag: nil, bounds: .range(0...60.0, unit: "seconds"),
        help: "Seconds a spooled message may wait for fdatasync (0: each one at once).")

    // MARK: HTTP (live page, snapshots, metrics, WebSocket events)

    public static let http = Setting(
        "http", flag: "http", valueName: "host:port",
        help:
            "Serve the live page, /stream.mjpg, /snapshot.jpg, /state, /metrics and WebSocket /events over HTTP at HOST:PORT (e.g. 127.0.0.1:8080; keep it on loopback unless you set a token). Off by default."
    )
    public static let httpToken = Setting(
        "httpToken", flag: "http-token", valueName: "file",
        help:
            "Require 'Authorization: Bearer TOKEN' on every HTTP request but the page shell; TOKEN is read from this file (never from the command line). Open the page as http://HOST:PORT/#token=TOKEN. Also lets the page set the rect of interest."
    )
    public static let httpMaxFps = Setting(
        "httpMaxFps", flag: "http-max-fps", valueName: "fps",
        bounds: .range(0...1000, note: "(0: no cap)"),
        help:
            "Encode at most this many preview frames per second for /stream.mjpg (default 15; 0: every processed frame). The JPEG encoding shares the CPU with detection: the cap keeps a watched preview cheap."
    )

    // MARK: Types

    public static let types = Setting(
        "types", flag: "types", valueName: "types",
        help:
            "Comma-separated metadata object types to report (metadataObjectTypes), or 'all'/'codes'. zbar's names (qrcode, i25, databar, …) are aliases. See 'scand types'."
    )
    public static let rectOfInterest = Setting(
        "rectOfInterest", flag: "rect-of-interest", valueName: "x,y,w,h",
        help:
            "Scan only this part of the frame: x,y,w,h in normalized device coordinates (0..1, origin top-left). Results stay relative to the whole frame."
    )

    // MARK: Presence (appeared/lost)

    public static let presence = Setting(
        "presence.enabled", flag: "presence", help: "Publish appeared/lost presence events (default on).")
    public static let presenceBy = Setting(
        "presence.by", flag: "presence-by", valueName: "value|instance",
        help:
            "What one presence of a code is: 'value' (every symbol with that payload together; the default) or 'instance' (each symbol, by its trackID); also written --presence value|instance."
    )
    public static let duplicateFilter = Setting(
        "presence.duplicateFilter", flag: "duplicate-filter", valueName: "off|once|s",
        bounds: .above(0, atMost: 86_400, unit: "seconds"),
        help:
            "Which 'appeared' events of a code value are published: 'off' (every time it appears; default), 'once' (once per run), or seconds (not again within that long of its last one)."
    )
    public static let lostAfter = Setting(
        "presence.lostAfter", flag: "lost-after", valueName: "s",
        bounds: .range(0...86_400.0, unit: "seconds"),
        help: "Seconds a code value must be absent before 'lost' (grace period; default 1.0).")
    public static let cooldown = Setting(
        "presence.cooldown", flag: "cooldown", valueName: "s",
        bounds: .range(0...86_400.0, unit: "seconds"),
        help: "Seconds after 'lost' before the same value can appear again (default 0.5).")
    public static let appearAfter = Setting(
        "presence.appearAfterFrames", flag: "appear-after", aliases: ["appearAfter"], valueName: "n",
        bounds: .range(1...1000), help: "Frames a value must be seen in before 'appeared' (default 1).")
    public static let faceLostAfter = Setting(
        "presence.faceLostAfter", flag: "face-lost-after", valueName: "s",
        bounds: .range(0...86_400.0, unit: "seconds"),
        help: "Alias of --face-grace: seconds a face (faceID) must be absent before 'lost' (default 0.5).")

    // MARK: Preview (view coordinates)

    public static let viewSize = Setting(
        "viewSize", flag: "view-size", valueName: "WxH",
        help:
            "Size of the consumer's preview in view points, WxH (e.g. 1080x1920). Adds \"view\" geometry to every object."
    )
    public static let videoGravity = Setting(
        "videoGravity", flag: "video-gravity", valueName: "gravity",
        help:
            "How the picture fits the view: resize (stretch), resizeAspect (fit, letterbox), resizeAspectFill (fill, crop). Default resizeAspect."
    )
    public static let orientation = Setting(
        "orientation", flag: "orientation", valueName: "orientation",
        help:
            "How the picture is turned for display: landscapeRight (as captured), portrait (90° clockwise), landscapeLeft (180°), portraitUpsideDown (270°). Default landscapeRight."
    )
    public static let mirrored = Setting(
        "mirrored", flag: "mirrored",
        help: "The preview is mirrored left-right after rotation (isVideoMirrored), as a selfie view is (default off).")
    public static let rectOfInterestView = Setting(
        "rectOfInterestView", flag: "rect-of-interest-view", valueName: "x,y,w,h",
        help:
            "Scan only the part of the picture shown in this rectangle of the view: x,y,w,h in view points. Needs --view-size; not with --rect-of-interest."
    )

    /// The settings declared in this file, in help order.
    public static let service: [Setting] = [
        input, device, cameras, cameraCa, pacing, loop, exitAtEnd, keepRunning, failFast, maxPixels, stdout, socket,
        socketGroup,
        metadata,
        clientQueue, clientStallTimeout, stdoutQueue, raw, rawBytes, oneshot, timeout, logLevel, socketSendBuffer, mqtt,
        mqttCa, mqttCert, mqttKey, mqttUsername, mqttPasswordFile, mqttPasswordEnv, mqttId, mqttTopicPrefix, mqttQos,
        mqttKindTopics, mqttMetadata, mqttDiscovery, mqttDiscoveryPrefix, mqttQueue, mqttReconnectMax, mqttSpool,
        mqttSpoolBytes, mqttQueueBytes, mqttInFlight, mqttKeepalive, mqttConnectTimeout, mqttSpoolSync, http, httpToken,
        httpMaxFps, types, rectOfInterest, presence, presenceBy, duplicateFilter, lostAfter, cooldown, appearAfter,
        faceLostAfter, viewSize,
        videoGravity, orientation, mirrored, rectOfInterestView,
    ]
}
