import ArgumentParser
import ScanCapture
import ScanOutput

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List V4L2 video capture devices as JSON lines, one device per line.",
        discussion: """
            Each line: path, id (/dev/v4l/by-id name, when udev made one), driver, card, bus, and the driver's \
            native formats (fourcc, description, compressed) with their sizes (discrete: width, height, intervals; \
            or stepwise ranges) and frame intervals (numerator/denominator seconds, fps); every control (id, name as \
            --control takes it, label, type, min, max, step, default, value, menu items, flags such as read-only and \
            inactive); and supportedModes: the focus, exposure, white balance and torch modes the controls allow \
            (isFocusModeSupported …). Nodes without video capture in their device_caps (metadata nodes, outputs) are \
            skipped; --log-level info names them.
            """)

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let logger = logging.makeLogger()
        LibraryStderr.route(to: logger)
        defer { LibraryStderr.stopRouting() }
        let devices = DiscoverySession.devices { skipped in
            logger.info("skipped \(skipped.path): \(skipped.reason)")
        }
        if devices.isEmpty { logger.warning("no V4L2 video capture devices found") }
        let sink = FileDescriptorSink()
        let encoder = JSONLinesEncoder()
        for device in devices { sink.write(encoder.encodeLine(device)) }
        try exitOnWriteError(sink, logger: logger)
    }
}
