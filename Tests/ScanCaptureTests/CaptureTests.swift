import Testing
import ScanCore
@testable import ScanCapture

/// A webcam-like device: YUYV with discrete sizes, MJPG with an extra large size, H.264 (not convertible).
private func webcam() -> CaptureDevice {
    func sizes(_ list: [(Int, Int)]) -> [DiscreteFrameSize] {
        list.map { DiscreteFrameSize(width: $0.0, height: $0.1, intervals: [FrameInterval(numerator: 1, denominator: 30)], intervalRange: nil) }
    }
    return CaptureDevice(
        path: "/dev/video7", uniqueID: "usb-Test_Cam-video-index0", driver: "uvcvideo", card: "Test Cam", bus: "usb-1",
        deviceCaps: 0x0420_0001,
        formats: [
            CaptureFormat(fourcc: "YUYV", description: "YUYV 4:2:2", compressed: false,
                          sizes: sizes([(160, 120), (352, 288), (640, 480), (1280, 720)]), stepwise: nil),
            CaptureFormat(fourcc: "MJPG", description: "Motion-JPEG", compressed: true,
                          sizes: sizes([(640, 480), (1280, 720), (2592, 1944)]), stepwise: nil),
            CaptureFormat(fourcc: "H264", description: "H.264", compressed: true,
                          sizes: sizes([(1920, 1080)]), stepwise: nil),
        ])
}

private func stepwiseDevice() -> CaptureDevice {
    CaptureDevice(path: "/dev/video3", uniqueID: nil, driver: "vivid", card: "vivid", bus: "platform:vivid-000",
                  deviceCaps: 1, formats: [
                    CaptureFormat(fourcc: "GREY", description: "8-bit Greyscale", compressed: false, sizes: [],
                                  stepwise: StepwiseFrameSize(minWidth: 16, maxWidth: 4096, stepWidth: 2,
                                                              minHeight: 16, maxHeight: 2160, stepHeight: 2,
                                                              intervals: [], intervalRange: nil))])
}

@Suite struct SessionPresetTests {
    @Test func fixedPresetsNeedTheirExactSize() throws {
        let d = webcam()
        #expect(try d.resolve(.vga640x480) == PixelSize(width: 640, height: 480))
        #expect(try d.resolve(.hd1280x720) == PixelSize(width: 1280, height: 720))
        // 1920x1080 exists only as H.264, which libv4l2 cannot convert: refused, with the offers listed.
        #expect(!d.canSetSessionPreset(.hd1920x1080))
        do {
            _ = try d.resolve(.hd1920x1080)
            Issue.record("hd1920x1080 should be refused")
        } catch let ScanError.device(path, reason) {
            #expect(path == "/dev/video7")
            #expect(reason.contains("1920x1080"))
            #expect(reason.contains("YUYV 160x120, 352x288, 640x480, 1280x720"))
        }
    }

    @Test func namedPresetsPickFromWhatIsOffered() throws {
        let d = webcam()
        // high: the largest convertible size up to 1920x1080 (2592x1944 MJPG is larger, H.264 does not count).
        #expect(try d.resolve(.high) == PixelSize(width: 1280, height: 720))
        #expect(try d.resolve(.medium) == PixelSize(width: 640, height: 480))
        // low aims at 320x240: 352x288 is closest in area (160x120 is a factor 4 off).
        #expect(try d.resolve(.low) == PixelSize(width: 352, height: 288))
    }

    @Test func stepwiseRangesAreClampedToSteps() throws {
        let d = stepwiseDevice()
        #expect(try d.resolve(.hd1920x1080) == PixelSize(width: 1920, height: 1080))
        #expect(try d.resolve(.high) == PixelSize(width: 1920, height: 1080))
        #expect(try d.resolve(.low) == PixelSize(width: 320, height: 240))
        #expect(d.supports(PixelSize(width: 1000, height: 700)))
        #expect(!d.supports(PixelSize(width: 1001, height: 700)))  // off the 2-pixel step
        #expect(!d.supports(PixelSize(width: 8000, height: 700)))
        let range = d.formats[0].stepwise!
        #expect(range.nearest(to: PixelSize(width: 9999, height: 3)) == PixelSize(width: 4096, height: 16))
    }

    @Test func explicitSizeIsChecked() {
        #expect(throws: ScanError.self) { try webcam().validate(size: PixelSize(width: 1024, height: 768)) }
        #expect(parsePixelSize("1280x720") == PixelSize(width: 1280, height: 720))
        #expect(parsePixelSize("1280X720") == PixelSize(width: 1280, height: 720))
        #expect(parsePixelSize("1280") == nil)
        #expect(parsePixelSize("0x720") == nil)
        #expect(parsePixelSize("axb") == nil)
    }

    @Test func fourccRoundTrips() {
        #expect(fourccString(fourccCode("YUYV")) == "YUYV")
        #expect(fourccCode("YU12") == 0x3231_5559)
        #expect(fourccString(fourccCode("Y8")) == "Y8")
        // Y16_BE is v4l2_fourcc_be('Y', '1', '6', ' '): bit 31 set.
        #expect(fourccString(0x2036_3159 | 0x8000_0000) == "Y16-BE")
        #expect(fourccCode("Y16-BE") == 0x2036_3159 | 0x8000_0000)
    }
}

@Suite struct CaptureSessionTests {
    @Test func missingDeviceIsAClearErrorAtStart() throws {
        let session = CaptureSession(configuration: CaptureConfiguration(device: "/dev/video-does-not-exist"))
        do {
            try session.startRunning()
            Issue.record("startRunning should fail")
        } catch let ScanError.device(path, reason) {
            #expect(path == "/dev/video-does-not-exist")
            #expect(reason.contains("no such device"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
        #expect(session.state == .stopped)
        #expect(session.info.isLive)
        #expect(try session.nextFrame() == nil)
    }

    @Test func failedCommitAppliesNothing() {
        let session = CaptureSession(configuration: CaptureConfiguration(device: "/dev/video-does-not-exist"))
        session.beginConfiguration()
        session.sessionPreset = .hd1280x720
        session.frameRate = -3
        #expect(throws: ScanError.self) { try session.commitConfiguration() }
        #expect(session.state == .stopped)
    }

    @Test func nestedBatchesCommitOnlyAtTheOutermostCommit() throws {
        let session = CaptureSession(configuration: CaptureConfiguration(device: "/dev/video-does-not-exist"))
        session.beginConfiguration()
        session.beginConfiguration()
        session.frameSize = PixelSize(width: 640, height: 480)
        try session.commitConfiguration()  // inner: nothing checked yet, so no error
        #expect(throws: ScanError.self) { try session.commitConfiguration() }
    }

    @Test func framesAreNotQueuedWhenNothingRuns() throws {
        let session = CaptureSession(configuration: CaptureConfiguration(device: "/dev/null"))
        let start = MonotonicInstant.now
        #expect(try session.nextFrame(timeout: .seconds(0.2)) == nil)
        #expect(start.elapsed.inSeconds < 0.2)  // stopped: returns at once
    }
}
