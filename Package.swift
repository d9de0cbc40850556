// swift-tools-version: 6.1
// BridgeKit: a safe, typed bridge between native Swift code and the pages in WebKit web views.
import Foundation
import PackageDescription

/// Swift settings shared by every target: Swift 6 language mode (set by the tools version),
/// strict concurrency, and upcoming features that tighten the language.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The pkg-config file of the CWebKitGTK system library (WebKitGTK trait, Linux).
///
/// The system's `webkit2gtk-4.1.pc` pulls in `-pthread` and `-Wl,--export-dynamic` (through glib's
/// gmodule and libsoup's sysprof-capture), which SwiftPM refuses with "warning: prohibited
/// flag(s): -pthread, …" twice on every build of every package that uses BridgeKitGTK, and then
/// drops. On the Debian/Ubuntu layout the package's own file in Sources/CWebKitGTK/pkgconfig gives
/// the same `-I` and `-l` flags without them (SwiftPM takes an absolute path as a pkg-config name;
/// scripts/check-pkgconfig compares the two). Anywhere else, or when the package's path has a
/// space (SwiftPM splits pkg-config names on spaces), the system's file is used as before.
let webKitGTKPkgConfig: String = {
    #if arch(x86_64)
    let multiarch: String? = "x86_64-linux-gnu"
    #elseif arch(arm64)
    let multiarch: String? = "aarch64-linux-gnu"
    #else
    let multiarch: String? = nil
    #endif
    let system = "webkit2gtk-4.1"
    guard let multiarch else { return system }
    let local = Context.packageDirectory + "/Sources/CWebKitGTK/pkgconfig/webkit2gtk-4.1-\(multiarch).pc"
    let layout = [
        local, "/usr/include/webkitgtk-4.1/webkit2/webkit2.h", "/usr/lib/\(multiarch)/glib-2.0/include/glibconfig.h",
    ]
    guard !local.contains(" "), layout.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) else { return system }
    return local
}()

let package = Package(
    name: "BridgeKit",
    // The OS versions hybrid apps still ship to: the package's one lock (`Locked`) is an
    // `os_unfair_lock` on Apple platforms, and everything the WebKit adapter uses is iOS 14 /
    // macOS 11 (checked by scripts/apple-typecheck). Linux has no minimum.
    platforms: [.macOS(.v12), .iOS(.v15), .macCatalyst(.v15), .visionOS(.v1)],
    products: [
        .library(name: "BridgeKit", targets: ["BridgeKit"]),
        .library(name: "BridgeCookies", targets: ["BridgeCookies"]),
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
        )
    ],
    targets: [
        .target(name: "BridgeKit", swiftSettings: strictSettings),
        // Cookies: the RFC 6265 jar, its persistence, the `document.cookie` script and the sync with
        // a web engine's store (and, on Apple platforms, `WKHTTPCookieStore`). Uses BridgeKit's
        // script builder; the router core never imports it (docs/architecture.md).
        .target(name: "BridgeCookies", dependencies: ["BridgeKit"], swiftSettings: strictSettings),
        .target(name: "BridgeTasks", dependencies: ["BridgeKit"], swiftSettings: strictSettings),
        .target(name: "BridgeKitTesting", dependencies: ["BridgeKit"], swiftSettings: strictSettings),
        .systemLibrary(
            name: "CWebKitGTK",
            pkgConfig: webKitGTKPkgConfig,
            providers: [.apt(["libwebkit2gtk-4.1-dev"])]
        ),
        .target(
            name: "BridgeKitGTK",
            dependencies: [
                "BridgeKit", "BridgeCookies", "BridgeTasks",
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
            dependencies: [
                "BridgeKit", "BridgeKitGTK", "BridgeTasks",
                // The peer designs and the bare reply-handler echo drive WebKit's C API directly.
                .target(name: "CWebKitGTK", condition: .when(platforms: [.linux], traits: ["WebKitGTK"])),
            ],
            swiftSettings: strictSettings
        ),
        // Helpers shared by the test targets (running node); no product.
        .target(name: "BridgeTestSupport", path: "Tests/BridgeTestSupport", swiftSettings: strictSettings),
        .testTarget(
            name: "BridgeKitTests",
            dependencies: ["BridgeKit", "BridgeKitTesting", "BridgeTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgeCookiesTests",
            dependencies: ["BridgeCookies", "BridgeKit", "BridgeTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgeTasksTests",
            dependencies: ["BridgeKit", "BridgeTasks", "BridgeKitTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgeKitGTKTests",
            dependencies: ["BridgeKitGTK", "BridgeKit", "BridgeCookies", "BridgeTasks"],
            exclude: [
                "EndToEnd/Support/cookie_server.py", "EndToEnd/Support/replace_server.py",
                "EndToEnd/Support/many_host_server.py", "EndToEnd/Support/attack17_static_server.py",
                "EndToEnd/Support/attack18_server.py",
            ],
            swiftSettings: strictSettings
        ),
    ]
)
