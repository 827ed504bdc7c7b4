import Testing
import ScanCore
import ScanKit
import ScanCapture
import ScanDaemon

@Suite struct DaemonConfigFileTests {
    @Test func parsesEveryKey() throws {
        let text = """
        {"input": "a.y4m", "types": ["qr", "ean13"], "rectOfInterest": [0.1, 0.2, 0.5, 0.6], "tryInverted": false,
         "scanDensity": 2, "models": "/m", "metadata": false, "pacing": false, "loop": true, "exitAtEnd": true,
         "stdout": true, "logLevel": "info",
         "socket": {"path": "/run/scand/scand.sock", "group": "video", "clientQueue": 10, "stallTimeout": 3, "sendBuffer": 8192},
         "presence": {"enabled": true, "appearAfterFrames": 2, "lostAfter": 1.5, "cooldown": 3, "faceLostAfter": 0.25}}
        """
        let c = try DaemonConfigFile.parse(Array(text.utf8), name: "t.json")
        #expect(c.input == "a.y4m" && c.types == "qr,ean13" && c.tryInverted == false && c.scanDensity == 2)
        #expect(c.rectOfInterest == NormalizedRect(x: 0.1, y: 0.2, width: 0.5, height: 0.6))
        #expect(c.metadata == false && c.pacing == false && c.loop == true && c.exitAtEnd == true && c.stdout == true)
        #expect(c.socket.path == "/run/scand/scand.sock" && c.socket.group == "video" && c.socket.clientQueue == 10)
        #expect(c.socket.stallTimeout == 3 && c.socket.sendBuffer == 8192)
        #expect(c.presence.appearAfterFrames == 2 && c.presence.lostAfter == 1.5 && c.presence.cooldown == 3)
        #expect(c.presence.faceLostAfter == 0.25 && c.presence.enabled == true)
        let s = try DaemonConfigFile.parse(Array(#"{"types": "qr,face"}"#.utf8), name: "t")
        #expect(s.types == "qr,face")
        #expect(try DaemonConfigFile.parse(Array("{}".utf8), name: "t") == DaemonConfigFile())
    }

    @Test("an explicit scanDensity holds on stills of every size (no spacing scaled with the image)")
    func explicitScanDensity() throws {
        var o = OutputConfiguration()
        #expect(o.barcode.stillScanLines == 1500)
        try DaemonConfigFile.parse(Array(#"{"scanDensity": 1}"#.utf8), name: "t").apply(to: &o)
        #expect(o.barcode.scanDensity == 1 && o.barcode.stillScanLines == nil)
        var untouched = OutputConfiguration()
        try DaemonConfigFile.parse(Array(#"{"engine": "zbar"}"#.utf8), name: "t").apply(to: &untouched)
        #expect(untouched.barcode.stillScanLines == 1500)
    }

    /// `--check-config` prints an unset code39FullASCII as "evident" (the default: Full ASCII where the symbol
    /// evidently is); that output reads back as the same setting.
    @Test func code39FullASCIIReadsBack() throws {
        #expect(try DaemonConfigFile.parse(Array(#"{"code39FullASCII": "evident"}"#.utf8), name: "t").code39FullASCII == nil)
        #expect(try DaemonConfigFile.parse(Array(#"{"code39FullAscii": "evident"}"#.utf8), name: "t") == DaemonConfigFile())
        #expect(try DaemonConfigFile.parse(Array(#"{"code39FullASCII": false}"#.utf8), name: "t").code39FullASCII == false)
        #expect(try DaemonConfigFile.parse(Array(#"{"code39FullASCII": true}"#.utf8), name: "t").code39FullASCII == true)
    }

    @Test func errorsNameTheFileAndKey() {
        let cases: [(String, String)] = [
            (#"{"sokcet": {}}"#, "t.json:1:2: unknown config key 'sokcet'"),
            (#"{"presence": {"grace": 1}}"#, "t.json:1:15: unknown config key 'presence.grace'"),
            (#"{"loop": "yes"}"#, "t.json:1:2: 'loop' must be true or false"),
            (#"{"code39FullASCII": "sometimes"}"#, #"t.json:1:2: 'code39FullASCII' must be true, false or "evident", got 'sometimes'"#),
            ("{", "t.json:1:2: expected a key in double quotes, found the end of the file"),
            (#"{"rectOfInterest": [1, 2]}"#, "t.json:1:2: 'rectOfInterest' takes"),
        ]
        for (text, message) in cases {
            do {
                _ = try DaemonConfigFile.parse(Array(text.utf8), name: "t.json")
                Issue.record("accepted \(text)")
            } catch {
                #expect("\(error)".contains(message), "\(text): \(error)")
            }
        }
    }

    /// The config file gets the same bounds as the flags, refuses duplicate keys, and names line and column.
    @Test func boundsDuplicatesAndPositions() {
        let cases: [(String, String)] = [
            ("{\n  \"socket\": {\"clientQueue\": 1e12}\n}", "t.json:2:14: 'socket.clientQueue' must be 1...1000000, got 1000000000000"),
            ("{\n  \"socket\": {\"clientQueue\": 1000001}\n}", "t.json:2:14: 'socket.clientQueue' must be 1...1000000, got 1000001"),
            (#"{"socket": {"clientQueue": 0}}"#, "t.json:1:13: 'socket.clientQueue' must be 1...1000000, got 0"),
            (#"{"socket": {"stallTimeout": 0}}"#, "'socket.stallTimeout' must be more than 0"),
            (#"{"socket": {"sendBuffer": 100}}"#, "'socket.sendBuffer' must be 1024..."),
            (#"{"scanDensity": 17}"#, "t.json:1:2: 'scanDensity' must be 1...16, got 17"),
            (#"{"stdoutQueue": 0}"#, "'stdoutQueue' must be 1...1000000"),
            (#"{"maxPixels": 0}"#, "'maxPixels' must be 1..."),
            (#"{"logLevel": "loud"}"#, "'logLevel' must be one of trace, debug"),
            (#"{"presence": {"lostAfter": -1}}"#, "t.json:1:15: 'presence.lostAfter' must be 0...86400"),
            (#"{"presence": {"appearAfterFrames": 0}}"#, "'presence.appearAfterFrames' must be 1...1000"),
            ("{\"loop\": true,\n \"loop\": false}", "t.json:2:2: duplicate key 'loop' (first at 1:2)"),
            (#"{"socket": {"path": "/a", "path": "/b"}}"#, "t.json:1:27: duplicate key 'path' (first at 1:13)"),
            ("{\"a\\u0062\": 1, \"ab\": 2}", "duplicate key 'ab'"),
            ("{\n\n  \"loop\": tru }", "t.json:3:11: expected a value, found 't'"),
            ("{\"loop\": true,}", "t.json:1:15: expected a key in double quotes, found '}'"),
            ("{\"loop\": true} x", "t.json:1:16: unexpected text after the JSON value"),
            ("", "t.json:1:1: empty document"),
            (String(repeating: "[", count: 100), "nested deeper than 64 levels"),
            ("{\"input\": \"a\u{01}b\"}", "control character (byte 0x1) inside a string"),
            ("{\"日本\": 1}", "t.json:1:2: unknown config key '日本'"),
            ("{\"a\nb\": 1}", "control character"),
            ("{\"a\\nb\": 1}", "unknown config key 'a\\x0ab'"),
        ]
        for (text, message) in cases {
            do {
                _ = try DaemonConfigFile.parse(Array(text.utf8), name: "t.json")
                Issue.record("accepted \(text)")
            } catch {
                #expect("\(error)".contains(message), "\(text): \(error)")
            }
        }
    }

    @Test func validValuesAtTheBoundsAreAccepted() throws {
        let text = #"{"socket": {"clientQueue": 1000000, "stallTimeout": 0.5, "sendBuffer": 1024}, "scanDensity": 16, "stdoutQueue": 1, "maxPixels": 1000, "logLevel": "trace", "presence": {"lostAfter": 0}}"#
        let c = try DaemonConfigFile.parse(Array(text.utf8), name: "t")
        #expect(c.socket.clientQueue == 1_000_000 && c.scanDensity == 16 && c.stdoutQueue == 1 && c.maxPixels == 1000)
    }
}

/// Issue 16/20: every option of `run` has a key, each is typed and checked by its configuration type's
/// `validate()`, and errors name the line and the column.
@Suite struct DaemonConfigFileRunKeysTests {
    @Test func readerCameraPreviewAndFaceKeysParseAndApply() throws {
        let text = """
        {"engine": "zxing", "passes": ["plain", "inverted"], "extraPasses": false, "codabarMinLength": 8,
         "i25MinLength": 10, "i25Checksum": true, "minLinearQuality": 3, "zbarUncertainty": 1, "confirm1D": true,
         "streamSteps": 2, "streamScanDensity": 3, "parallelDetectors": false, "loadShedding": false,
         "code32": true, "confirmTransformed": false, "checkSmallRetail": true, "upceQuietZone": false, "preset": "vga640x480", "fps": 15, "stallTimeout": 4,
         "viewSize": "1080x1920", "videoGravity": "resizeAspectFill", "orientation": "portrait", "mirrored": true,
         "faceCascade": "haar", "minFaceSize": 30, "maxFaceSize": 300, "faceInterval": 4, "faceAnalysisSize": 0,
         "faceWindow": false, "rollSearch": false, "eyeRoll": false, "yaw": false, "faceMaxMisses": 5,
         "faceGrace": 1.5, "faceScaleFactor": 1.2, "faceMinNeighbors": 4, "raw": true, "oneshot": true, "keepRunning": true}
        """
        let c = try DaemonConfigFile.parse(Array(text.utf8), name: "t.json")
        var o = OutputConfiguration()
        c.apply(to: &o)
        #expect(o.barcode.engine == .zxing && o.barcode.passes == [.plain, .inverted] && !o.barcode.extraPasses)
        #expect(o.barcode.minimumCodabarLength == 8 && o.barcode.minimumI25Length == 10 && o.barcode.requireI25Checksum)
        #expect(o.barcode.minimumLinearQuality == 3 && o.barcode.zbarUncertainty == 1 && o.barcode.confirmLinearCodes)
        #expect(o.barcode.streamStepsPerFrame == 2 && o.barcode.streamScanDensity == 3 && !o.parallelDetectors && !o.shedLoadWhenLate)
        #expect(o.barcode.code32 && !o.barcode.confirmTransformedLinearReads && o.barcode.checkSmallRetailReads)
        #expect(!o.barcode.checkUPCEQuietZone && BarcodeConfiguration().checkUPCEQuietZone)
        #expect(o.face.cascade == .haar && o.face.minimumFaceSize == 30 && o.face.maximumFaceSize == 300)
        #expect(o.face.detectionInterval == 4 && o.face.analysisShortSide == nil && !o.face.windowSearch)
        #expect(!o.face.rollSearch && !o.face.eyeRoll && !o.face.estimateYaw && o.face.maxMissedFrames == 5)
        #expect(o.face.presenceGrace == 1.5 && o.face.scaleFactor == 1.2 && o.face.minNeighbors == 4)
        var capture = CaptureConfiguration(device: "/dev/video0")
        c.apply(to: &capture)
        #expect(capture.sessionPreset == .vga640x480 && capture.frameRate == 15 && capture.stallTimeout == 4)
        #expect(c.viewSize == ViewSize(width: 1080, height: 1920) && c.videoGravity == .resizeAspectFill)
        #expect(c.orientation == .portrait && c.mirrored == true)
        #expect(c.raw == true && c.oneshot == true && c.keepRunning == true)
        let sized = try DaemonConfigFile.parse(Array(#"{"size": "1280x720", "passes": "plain,thresholded"}"#.utf8), name: "t")
        #expect(sized.size == PixelSize(width: 1280, height: 720) && sized.passes == [.plain, .thresholded])
    }

    @Test func newKeysAreCheckedWithLineAndColumn() {
        let cases: [(String, String)] = [
            ("{\n  \"engine\": \"zbr\"\n}", "t.json:2:3: 'engine' must be one of zbar, zxing, both, got 'zbr'"),
            ("{\n  \"enigne\": \"zbar\"\n}", "t.json:2:3: unknown config key 'enigne' (did you mean 'engine'?)"),
            ("{\"scanDensity\": 1,\n \"minFaceSize\": 4}", "t.json:2:2: 'minFaceSize' must be 8...16384 pixels, got 4"),
            ("{\"faceScaleFactor\": 3}", "t.json:1:2: 'faceScaleFactor' must be more than 1 and less than 2, got 3.0"),
            ("{\"fps\": 0}", "t.json:1:2: 'fps' must be more than 0 and at most 1000, got 0.0"),
            ("{\"size\": \"big\"}", "t.json:1:2: 'size' takes \"WxH\""),
            ("{\"preset\": \"high\", \"size\": \"640x480\"}", "t.json:1:20: 'size' and 'preset' exclude each other"),
            ("{\"passes\": [\"plain\", \"sharpened\"]}", "t.json:1:2: unknown pass 'sharpened' in 'passes'"),
            ("{\"streamScanDensity\": 17}", "t.json:1:2: 'streamScanDensity' must be 1...16, got 17"),
            ("{\"types\": \"qrcod\"}", "t.json:1:2: 'types': unknown metadata object type 'qrcod' (did you mean 'qr'?)"),
            ("{\"presence\": {\"lostAfter\": -1}}", "t.json:1:15: 'presence.lostAfter' must be 0...86400 seconds, got -1.0"),
        ]
        for (text, message) in cases {
            do {
                _ = try DaemonConfigFile.parse(Array(text.utf8), name: "t.json")
                Issue.record("accepted \(text)")
            } catch {
                #expect("\(error)".contains(message), "\(text): \(error)")
            }
        }
    }

    @Test func zbarTypeNamesAreAliases() throws {
        let all = Set(MetadataObjectType.allCases)
        #expect(try MetadataObjectType.parseList("qrcode,i25,databar,databar-exp,ean-13,isbn13,upca", available: all)
                == [.qr, .interleaved2of5, .gs1DataBar, .gs1DataBarExpanded, .ean13])
        #expect(MetadataObjectType.suggestion(for: "datamatirx") == .dataMatrix)
        #expect(MetadataObjectType.suggestion(for: "zzzzzz") == nil)
    }
}
