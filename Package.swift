// swift-tools-version: 6.1
// BridgeKit: a safe, typed bridge between native Swift code and the pages in WebKit web views.
import PackageDescription

/// Swift settings shared by every target: Swift 6 language mode (set by the tools version),
/// strict concurrency, and upcoming features that tighten the language.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "BridgeKit",
    // The OS versions hybrid apps still ship to: the package's one lock (`Locked`) is an
    // `os_unfair_lock` on Apple platforms, and everything the WebKit adapter uses is iOS 14 /
    // macOS 11 (checked by scripts/apple-typecheck). Linux has no minimum.
    platforms: [.macOS(.v12), .iOS(.v15), .macCatalyst(.v15), .visionOS(.v1)],
    products: [
        .library(name: "BridgeKit", targets: ["BridgeKit"]),
        .library(name: "BridgeTasks", targets: ["BridgeTasks"]),
        .library(name: "BridgeKitTesting", targets: ["BridgeKitTesting"]),
        .library(name: "BridgeKitGTK", targets: ["BridgeKitGTK"]),
        .executable(name: "bridgehost", targets: ["bridgehost"]),
        .executable(name: "bridgebench", targets: ["bridgebench"]),
    ],
    traits: [
        .trait(
            name: "WebKitGTK",
            description: "Builds the WebKitGTK host (BridgeKitGTK, bridgehost) against the system's webkit2gtk-4.1."
        ),
    ],
    targets: [
        .target(name: "BridgeKit", swiftSettings: strictSettings),
        .target(name: "BridgeTasks", dependencies: ["BridgeKit"], swiftSettings: strictSettings),
        .target(name: "BridgeKitTesting", dependencies: ["BridgeKit"], swiftSettings: strictSettings),
        .systemLibrary(
            name: "CWebKitGTK",
            pkgConfig: "webkit2gtk-4.1",
            providers: [.apt(["libwebkit2gtk-4.1-dev"])]
        ),
        .target(
            name: "BridgeKitGTK",
            dependencies: [
                "BridgeKit",
                .target(name: "CWebKitGTK", condition: .when(platforms: [.linux], traits: ["WebKitGTK"])),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "bridgehost",
            dependencies: ["BridgeKit", "BridgeTasks", "BridgeKitGTK"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "bridgebench",
            dependencies: ["BridgeKit", "BridgeKitGTK", "BridgeTasks"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgeKitTests",
            dependencies: ["BridgeKit", "BridgeKitTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgeTasksTests",
            dependencies: ["BridgeKit", "BridgeTasks", "BridgeKitTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgeKitGTKTests",
            dependencies: ["BridgeKitGTK", "BridgeKit", "BridgeTasks"],
            exclude: ["EndToEnd/Support/cookie_server.py"],
            swiftSettings: strictSettings
        ),
    ]
)
