// swift-tools-version: 6.2
// 6.2 (Xcode 26) is the oldest compiler that builds the package: the coding protocols refine
// `SendableMetatype` (Swift 6.2), which lets generic code send a model's type across isolation
// domains under strict concurrency, and the tests use exit tests (6.2). README, Platforms.
import PackageDescription

let package = Package(
    name: "KeyedArchive",
    // The first releases with `Duration` and `ContinuousClock`, which the reading and writing
    // budgets measure time with (README, Platforms: every newer API the package uses is behind
    // `@available`; `.ci/darwin-check` type-checks each product at these minimums).
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "KeyedArchive", targets: ["KeyedArchive"]),
        .executable(name: "keyedarchive", targets: ["keyedarchive"]),
        .library(name: "KeyedArchiveTesting", targets: ["KeyedArchiveTesting"]),
    ],
    targets: [
        .target(name: "PropertyList"),
        .target(name: "KeyedArchive", dependencies: ["PropertyList"]),
        .executableTarget(name: "keyedarchive", dependencies: ["PropertyList", "KeyedArchive"]),
        // XCTest and Swift Testing come with the toolchain; no package is needed for either.
        .target(name: "KeyedArchiveTesting", dependencies: ["KeyedArchive", "PropertyList"]),
        .target(name: "BenchmarkSupport", path: "Sources/BenchmarkSupport"),
        .executableTarget(name: "keyedarchive-benchmark", dependencies: ["PropertyList", "KeyedArchive", "BenchmarkSupport"]),
        .executableTarget(name: "keyedarchive-fleet-benchmark", dependencies: ["PropertyList", "KeyedArchive", "BenchmarkSupport"]),
        .executableTarget(name: "keyedarchive-stack-benchmark", dependencies: ["PropertyList", "KeyedArchive"]),
        // The README's quick start, compiled as it is written (QuickStartTests compares the two).
        .executableTarget(name: "keyedarchive-quickstart", dependencies: ["KeyedArchive"], path: "Examples/QuickStart"),
        .testTarget(name: "PropertyListTests", dependencies: ["PropertyList"]),
        .testTarget(name: "KeyedArchiveToolTests", dependencies: ["keyedarchive", "keyedarchive-quickstart"]),
        .testTarget(name: "KeyedArchiveTests", dependencies: ["KeyedArchive", "PropertyList", "KeyedArchiveTesting"]),
        // Snapshots kept beside the tests (expectArchiveSnapshot without a path) are read from the
        // source tree, not built: excluded, as Docs/Testing.md tells users to do.
        .testTarget(name: "KeyedArchiveTestingTests", dependencies: ["KeyedArchiveTesting", "KeyedArchive", "PropertyList"],
                    exclude: ["__Snapshots__"]),
    ],
    swiftLanguageModes: [.v6]
)
