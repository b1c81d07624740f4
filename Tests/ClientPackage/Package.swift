// swift-tools-version: 6.2
// A client of KeyedArchive, as a team's own package would be: it depends on the package by path
// and switches over the public enums the way a client must. `ClientSourceCompatibilityTests`
// (Tests/KeyedArchiveToolTests) type-checks `Sources/Client/Client.swift` against the modules the
// test run built, and again with its `@unknown default` cases taken out, which must fail: an enum
// that may grow (Docs/PublicAPI.md) cannot be switched over exhaustively outside this package.
import PackageDescription

let package = Package(
    name: "Client",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    dependencies: [.package(name: "KeyedArchive", path: "../..")],
    targets: [
        .target(name: "Client", dependencies: [
            .product(name: "KeyedArchive", package: "KeyedArchive"),
            .product(name: "KeyedArchiveTesting", package: "KeyedArchive"),
        ]),
    ]
)
