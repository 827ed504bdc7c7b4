// swift-tools-version: 6.2
import PackageDescription

/// Swift settings shared by every Swift target: Swift 6 mode, no C type leaks, warnings are errors.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .treatAllWarnings(as: .error),
]

/// OpenCV headers live under /usr/include/opencv4 on Debian. Only the modules we use are linked:
/// Debian's opencv4.pc lists every module and the binary would then load ~380 shared objects.
/// Where scripts/build-zxing (run by scripts/install-deps) installs zxing-cpp 3.1.1's static reader core.
let zxingPrefix = Context.packageDirectory + "/.build-deps/zxing-cpp-3.1.1"
let openCVInclude: [CXXSetting] = [.unsafeFlags(["-I/usr/include/opencv4", "-Wall", "-Werror"])]

let package = Package(
    name: "scand",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "scand", targets: ["scand"]),
        .library(name: "ScanKit", targets: ["ScanKit"]),
        // The daemon (config file, services); the fuzz package (Fuzz/) fuzzes its config parser.
        .library(name: "ScanDaemon", targets: ["ScanDaemon"]),
        // Loaded with dlopen only when an input needs OpenCV's imgcodecs/videoio: linking those
        // directly costs ~100-180 ms of start-up (they pull in GDAL and FFmpeg).
        .library(name: "scand-opencv-codecs", type: .dynamic, targets: ["CScanOpenCVCodecs"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Issue 17: the preview page, /metrics and /events (ScanHTTP).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // MARK: C and C++ shims
        .systemLibrary(
            name: "CScanZBar", pkgConfig: "zbar",
            providers: [.apt(["libzbar-dev"])]),
        // OpenCV's image processing, cascades and the CenterFace network, for ScanDetection only.
        .target(
            name: "CScanOpenCV",
            cxxSettings: openCVInclude,
            linkerSettings: [
                .linkedLibrary("opencv_core"), .linkedLibrary("opencv_imgproc"),
                .linkedLibrary("opencv_objdetect"),
                // The neural face detector (issue 14): ~4 ms of start-up.
                .linkedLibrary("opencv_dnn"),
            ]),
        // Reading pictures, for ScanCapture only: PNG, JPEG and GIF with libpng, libjpeg-turbo and giflib, the rest
        // (and video files) through the codecs plugin below, loaded with dlopen.
        .target(
            name: "CScanImageIO",
            cxxSettings: [.unsafeFlags(["-Wall", "-Werror"])],
            linkerSettings: [
                .linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("gif"), .linkedLibrary("dl"),
            ]),
        .target(
            name: "CScanOpenCVCodecs",
            cxxSettings: openCVInclude,
            linkerSettings: [
                .linkedLibrary("opencv_core"), .linkedLibrary("opencv_imgproc"),
                .linkedLibrary("opencv_imgcodecs"), .linkedLibrary("opencv_videoio"),
                // HEIF (HEIC photos from phones, AVIF): OpenCV 4.6 reads neither.
                .linkedLibrary("heif"),
            ]),
        // zxing-cpp 3.1.1 (PyPI's pinned sdist, built static by scripts/build-zxing into .build-deps/): the
        // second barcode engine, for Data Matrix, Aztec, PDF417 and frames where zbar finds nothing.
        .target(
            name: "CScanZXing",
            cxxSettings: [
                .define("ZXING_INTERNAL"),
                .unsafeFlags(["-Wall", "-Werror", "-Xclang", "-std=c++20", "-isystem", "\(zxingPrefix)/include"]),
            ],
            linkerSettings: [.unsafeFlags(["\(zxingPrefix)/lib/libZXing.a"])]),
        // libjpeg-turbo: scand's one JPEG encoder (grey preview frames, colour annotated images), imported by
        // ScanCapture only (its `JPEGEncoder`).
        .target(
            name: "CScanJPEG",
            cSettings: [.unsafeFlags(["-Wall", "-Werror"])],
            linkerSettings: [.linkedLibrary("jpeg")]),
        // libmosquitto (Debian libmosquitto-dev): the MQTT client behind ScanMQTT (issue 19).
        .systemLibrary(
            name: "CScanMosquitto", pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]),
        // The C library's `stderr`, replaced so that what C libraries print there becomes scand's log lines
        // (ScanOutput's LibraryStderr); C++'s std::cout/cerr/clog are sent through it too (OpenCV's logger).
        .target(
            name: "CScanStderr",
            cSettings: [.unsafeFlags(["-Wall", "-Werror"])],
            cxxSettings: [.unsafeFlags(["-Wall", "-Werror"])]),
        .target(
            name: "CScanV4L2",
            cSettings: [.unsafeFlags(["-Wall", "-Werror"])],
            linkerSettings: [.linkedLibrary("v4l2")]),

        // MARK: Swift modules (arrows point toward ScanCore)
        .target(
            name: "ScanCore", dependencies: [.product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict),
        .target(
            name: "ScanCapture",
            dependencies: ["ScanCore", "CScanV4L2", "CScanImageIO", "CScanJPEG",
                           .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict),
        .target(
            name: "ScanDetection",
            dependencies: ["ScanCore", "CScanZBar", "CScanOpenCV", "CScanZXing"],
            swiftSettings: strict),
        .target(
            name: "ScanOutput",
            dependencies: ["ScanCore", "CScanStderr",
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict),
        // The MQTT client: publishes the event stream into a broker with an outbox (issue 19).
        .target(
            name: "ScanMQTT",
            dependencies: ["ScanCore", "CScanMosquitto", .product(name: "Logging", package: "swift-log"),
                           .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict),
        .target(
            name: "ScanKit",
            dependencies: ["ScanCore", "ScanCapture", "ScanDetection", "ScanOutput",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            swiftSettings: strict),
        // The daemon: config file, the pipeline and socket services, sd_notify.
        .target(
            name: "ScanDaemon",
            dependencies: ["ScanKit", "ScanCore", "ScanCapture", "ScanDetection", "ScanOutput", "ScanMQTT",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "UnixSignals", package: "swift-service-lifecycle")],
            swiftSettings: strict),
        // What `scand run` runs: a DaemonPlan (flags + config file, merged by the executable) assembled into the
        // daemon's service group (pipeline, socket, HTTP, MQTT) by DaemonRunner; exit statuses.
        .target(
            name: "ScanRun",
            dependencies: ["ScanDaemon", "ScanKit", "ScanCore", "ScanCapture", "ScanDetection", "ScanOutput", "ScanHTTP", "ScanMQTT",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            swiftSettings: strict),
        // `scand bench`: the benchmark harness and the naive baseline it reports ratios against.
        .target(
            name: "ScanBenchmark",
            dependencies: ["ScanKit", "ScanCore", "ScanCapture", "ScanDetection", "ScanOutput"],
            swiftSettings: strict),
        // The HTTP server inside the daemon (issue 17): live page, MJPEG, snapshots, /state, /metrics,
        // WebSocket /events (its snapshots draw with ScanOutput's Annotator, as `scan --annotate` does).
        .target(
            name: "ScanHTTP",
            dependencies: ["ScanCore", "ScanCapture", "ScanOutput", "ScanKit",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdCore", package: "hummingbird"),
                           .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                           .product(name: "Metrics", package: "swift-metrics"),
                           .product(name: "Prometheus", package: "swift-prometheus"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        .executableTarget(
            name: "scand",
            dependencies: ["ScanRun", "ScanDaemon", "ScanBenchmark", "ScanKit", "ScanCapture", "ScanDetection", "ScanOutput", "ScanMQTT",
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict),

        // The MQTT client's figures (bench/mqtt/measure.sh): throughput, outbox memory, drain time.
        .executableTarget(
            name: "scand-mqtt-bench",
            dependencies: ["ScanMQTT", "ScanCore", "ScanTestSupport", .product(name: "Logging", package: "swift-log")],
            path: "bench/mqtt/driver",
            swiftSettings: strict),

        // MARK: Tests mirror the modules, plus scandTests which runs the built binary.
        .target(name: "ScanTestSupport", dependencies: ["ScanCore", "ScanKit"], path: "Tests/ScanTestSupport", swiftSettings: strict),
        .testTarget(name: "ScanCoreTests", dependencies: ["ScanCore", "ScanTestSupport"], swiftSettings: strict),
        .testTarget(name: "ScanCaptureTests", dependencies: ["ScanCapture", "ScanCore", "ScanTestSupport"], swiftSettings: strict),
        .testTarget(name: "ScanDetectionTests", dependencies: ["ScanDetection", "ScanCapture", "ScanCore", "ScanTestSupport"], swiftSettings: strict),
        .testTarget(name: "ScanOutputTests", dependencies: ["ScanOutput", "ScanCore", "ScanTestSupport"], swiftSettings: strict),
        .testTarget(name: "ScanKitTests", dependencies: ["ScanKit", "ScanCapture", "ScanOutput", "ScanTestSupport", .product(name: "Logging", package: "swift-log")], swiftSettings: strict),
        .testTarget(name: "ScanBenchmarkTests", dependencies: ["ScanBenchmark", "ScanKit", "ScanCapture", "ScanCore", "ScanTestSupport"], swiftSettings: strict),
        .testTarget(name: "ScanDaemonTests", dependencies: ["ScanDaemon", "ScanDetection", "ScanKit", "ScanCapture", "ScanOutput", "ScanTestSupport", .product(name: "Logging", package: "swift-log"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")], swiftSettings: strict),
        .testTarget(name: "ScanHTTPTests", dependencies: ["ScanHTTP", "ScanCore", "ScanOutput", "ScanTestSupport"], swiftSettings: strict),
        .testTarget(name: "ScanMQTTTests", dependencies: ["ScanMQTT", "ScanCore", "ScanTestSupport", .product(name: "Logging", package: "swift-log")], swiftSettings: strict),
        .testTarget(name: "ScanRunTests", dependencies: ["ScanRun", "ScanDaemon", "ScanKit", "ScanCapture", "ScanOutput", "ScanCore", "ScanTestSupport", .product(name: "Logging", package: "swift-log")], swiftSettings: strict),
        .testTarget(name: "scandTests", dependencies: ["scand", "ScanCore", "ScanDaemon", "ScanTestSupport"], swiftSettings: strict),
    ],
    cxxLanguageStandard: .cxx17
)
