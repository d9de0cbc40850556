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
    // `Synchronization.Mutex` needs macOS 15 / iOS 18; Linux has no minimum.
    platforms: [.macOS(.v15), .iOS(.v18), .macCatalyst(.v18), .visionOS(.v2)],
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
        // The complete Linux window app of docs/integration-linux.md (built by scripts/test,
        // run under Xvfb with a screenshot check by BridgeKitGTKTests' WindowAppTests).
        .executableTarget(
            name: "bridgekit-window-example",
            dependencies: ["BridgeKit", "BridgeTasks", "BridgeKitGTK"],
            path: "examples/WindowApp",
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
