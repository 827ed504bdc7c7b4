// swift-tools-version: 6.2
import PackageDescription

/// libFuzzer targets for scand's parsers (see docs/testing.md). Built and run by `scripts/fuzz`:
/// `swift build --package-path Fuzz --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address`, which instruments
/// every Swift module (scand's and this package's) for coverage and AddressSanitizer. One executable holds every target:
/// `scand-fuzz <target> [libFuzzer flags] [corpus dirs]`.
///
/// It is a separate package so that the main package's `swift build` and `swift test` never see libFuzzer.
/// Under `--sanitize=fuzzer` SwiftPM compiles the executable with `-parse-as-library` and links libFuzzer's
/// own `main`, which calls the `@_cdecl` entry points in Driver.swift.
let package = Package(
    name: "scand-fuzz",
    dependencies: [.package(name: "scand", path: "..")],
    targets: [
        .executableTarget(
            name: "scand-fuzz",
            dependencies: [.product(name: "ScanKit", package: "scand"), .product(name: "ScanDaemon", package: "scand")],
            swiftSettings: [.treatAllWarnings(as: .error)]),
    ]
)
