// swift-tools-version:6.0
import CompilerPluginSupport
import PackageDescription

/// How an app meant for fleets is linked. The Swift libraries linked in statically: a fleet's
/// apps share one binary's pages and start without loading and relocating a dozen shared
/// libraries each (each app is smaller, and a post costs it less CPU). Foundation's own
/// dependencies are named, as the static link does not find them by itself. Not
/// position-independent: a PIE's 48,000 relocations dirtied 0.5 MB of every app's pages at start.
let fleetApp: [LinkerSetting] = [
    .unsafeFlags([
        "-static-stdlib", "-lCoreFoundation", "-lFoundationInternationalization", "-l_FoundationICU",
        "-l_FoundationCollections", "-l_FoundationCShims", "-lstdc++", "-Xlinker", "-no-pie",
    ])
]

/// App code as a team's is written: in Swift 5 mode, as an iOS app target builds.
let appCode: [SwiftSetting] = [.swiftLanguageMode(.v5)]

/// The one setting a team's target adds (Docs/your-app.md): a file that imports Foundation
/// alone sees the keychain, the CF names and the Darwin center, as on iOS.
let foundationBringsSecurity: SwiftSetting = .unsafeFlags(["-Xfrontend", "-import-module", "-Xfrontend", "Security"])

/// An example's app code, in Sources/Examples/NAME.
func exampleApp(
    _ name: String, _ dependencies: [Target.Dependency], exclude: [String] = [], swiftSettings: [SwiftSetting] = appCode
) -> Target {
    .target(
        name: name, dependencies: dependencies, path: "Sources/Examples/\(name)", exclude: exclude,
        swiftSettings: swiftSettings)
}

/// An example's entry, in Sources/Examples/Entries/NAME: the executable that runs `example`
/// with the mistake it ships with (or none).
func exampleEntry(_ name: String, of example: String, linkerSettings: [LinkerSetting] = []) -> Target {
    .executableTarget(
        name: name, dependencies: [.target(name: example), "UIKit"], path: "Sources/Examples/Entries/\(name)",
        swiftSettings: appCode, linkerSettings: linkerSettings)
}

/// A plain-C executable built next to sdlab, linked without the Swift runtime, which swiftc
/// would otherwise load into every C process (no startup object, the standard library static,
/// so nothing of it is pulled in).
func plainC(_ name: String, dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name, dependencies: dependencies, linkerSettings: [.unsafeFlags(["-static-stdlib", "-nostartfiles"])])
}

let package = Package(
    name: "SharedDeviceLab",
    products: [
        .executable(name: "sdlab", targets: ["sdlab"]),
        .executable(name: "sdlab-app", targets: ["sdlab-app"]),
        // The write fence every app is started through, beside sdlab-app.
        .executable(name: "sdlab-fence", targets: ["sdlab-fence"]),
        .library(name: "DBusKit", targets: ["DBusKit"]),
        // What a team's own app code links: the real SDKs' modules under their real names, so its
        // files compile with their imports as they are, and the host that runs it in a device.
        .library(name: "MSAL", targets: ["MSAL"]),
        .library(name: "AWSDK", targets: ["AWSDK"]),
        // MSAL Android's single-account API in Swift, for an app written as an Android one.
        .library(name: "MSALAndroid", targets: ["MSALAndroid"]),
        .library(name: "notify", targets: ["notify"]),
        .library(name: "Security", targets: ["Security"]),
        .library(name: "SQLite3", targets: ["SQLite3"]),
        .library(name: "UIKit", targets: ["UIKit"]),
        .library(name: "Combine", targets: ["Combine"]),
        .library(name: "UserNotifications", targets: ["UserNotifications"]),
        .library(name: "SwiftUI", targets: ["SwiftUI"]),
        .library(name: "DeviceHost", targets: ["DeviceHost"]),
        // A SwiftUI app's target adds it, so that an app delegate deriving from NSObject is made.
        .plugin(name: "AppDelegateAdaptors", targets: ["AppDelegateAdaptors"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        // `#Preview`, the one macro SwiftUI code writes everywhere (SwiftUIMacros).
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: System and bus
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // pidfd_open and posix_spawn flags, which Swift cannot reach directly.
        .systemLibrary(name: "CSystem"),
        // Extended attributes, which the scanner reads beside a file's content, and setfsuid.
        .systemLibrary(name: "CFileAccess"),
        // zlib, to read what a cleanup compressed rather than removed.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // bzip2, xz/lzma and zstd: the other methods zip archives (and files) are compressed with.
        .systemLibrary(name: "CBzip2", providers: [.apt(["libbz2-dev"])]),
        .systemLibrary(name: "CLzma", pkgConfig: "liblzma", providers: [.apt(["liblzma-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CSQLite3", providers: [.apt(["libsqlite3-dev"])]),
        // SQLite's defaults as on iOS (secure_delete off) for every connection a process linking
        // SQLite3 opens, set by a constructor (Sources/CSQLiteDefaults).
        .target(name: "CSQLiteDefaults", dependencies: ["CSQLite3"]),
        // GMime 3 and libarchive (libgmime-3.0-dev, libarchive-dev), loaded with dlopen when the
        // scanner first meets mail or an archive and never linked: linked, they would add about
        // 10 ms to every app process's start.
        .target(name: "CFormatLibraries"),
        // Swift over libdbus; knows nothing about devices.
        .target(name: "DBusKit", dependencies: ["CDBus"]),

        // MARK: Domain
        // The domain: pure Swift, no I/O.
        .target(name: "SharedDevice"),

        // MARK: Device plumbing
        // Child processes, the private dbus-daemon and the run folder's layout, shared by the
        // product and the tests.
        .target(name: "DeviceProcesses", dependencies: ["CSystem"]),
        // What every process of a device agrees on: bus names, members, errors, wire shapes,
        // the trace vocabulary and the app's options as the runner writes them.
        .target(name: "DeviceContract", dependencies: ["DBusKit", "DeviceProcesses", "SharedDevice"]),
        // The app's command line read back, with its help, for the app processes that parse it:
        // apart from the contract, so that joining a device needs no CLI parser.
        .target(
            name: "AppCommandLine",
            dependencies: [
                "DeviceContract", "SharedDevice", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // What the hub reads and writes in its folder: its setup (the console's users, hashed) and
        // its saved state. The hub and whoever starts it or reads its state both use them.
        .target(
            name: "HubFiles",
            dependencies: [
                "DeviceProcesses", "SharedDevice",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]),
        // The device attacker: reads containers and tries every key found in them (Docs/behaviour.md §8).
        .target(
            name: "LeakScan",
            dependencies: [
                "CBzip2", "CFileAccess", "CFormatLibraries", "CLzma", "CSQLite3", "CZlib", "CZstd", "SharedDevice",
                "DeviceProcesses",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // Optimised in a debug build too: an app's own scan after each cleanup is part of the
            // exposure a run measures, and unoptimised it read a 12 MB database in 6 s, not 1.
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),

        // MARK: Device services
        // The hub process: the SharedDevice session served on the bus.
        .target(
            name: "Hub",
            dependencies: [
                "DBusKit", "DeviceContract", "HubFiles", "SharedDevice", "DeviceProcesses",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Starts a device in a run folder (its bus and hub), launches its apps and calls them.
        .target(
            name: "DeviceLaunch",
            dependencies: [
                "CFenceWatch", "CSystem", "DBusKit", "DeviceContract", "DeviceProcesses", "HubFiles", "SharedDevice",
            ]),
        // The fence's watch: the kernel holds every call that writes a file until the runner has
        // looked where it lands (seccomp user notification); installed by sdlab-fence, answered
        // by the runner.
        .target(name: "CFenceWatch"),
        // The fence the kernel holds (Landlock), which the runner starts every app through, built
        // next to sdlab: plain C without the Swift runtime, so nothing runs before the fence.
        plainC("sdlab-fence", dependencies: ["CFenceWatch"]),

        // MARK: SDK core
        // The simulated SDK clients as an app's SDK calls them, over the device bus: MSAL's
        // (iOS and Android), the broker, Workspace ONE's, the keychain and the key service.
        .target(
            name: "SDKClients",
            dependencies: [
                "DBusKit", "DeviceContract", "SharedDevice", "DeviceProcesses",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The process's link to its device and the call core every facade below talks through.
        .target(name: "FacadeCore", dependencies: ["DBusKit", "DeviceContract", "SharedDevice"]),

        // MARK: Facades (the real SDKs' names, Docs/your-app.md)
        // notify(3)'s registrations, posts and states over the device's notification center.
        .target(name: "DarwinNotify", dependencies: ["DBusKit", "DeviceContract", "FacadeCore", "SharedDevice"]),
        // CoreFoundation's names a team's code uses (CFString, CFDictionary, …), the Darwin
        // notify center and Combine's core (`ObservableObject`, `@Published`, subjects,
        // operators, `DispatchQueue` as a scheduler), which Foundation brings on iOS; every
        // facade re-exports it.
        .target(
            name: "CoreFoundationDarwin",
            dependencies: [
                "DarwinNotify", "FacadeCore", .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ]),
        // An app delegate's notification authorisation and delegate, which change nothing here.
        .target(name: "UserNotifications", dependencies: ["CoreFoundationDarwin"]),
        // `import Combine`: OpenCombine under Combine's name, with its Foundation part (the
        // publishers of NotificationCenter, Timer and URLSession), which links FoundationNetworking.
        .target(
            name: "Combine",
            dependencies: ["CoreFoundationDarwin", .product(name: "OpenCombineFoundation", package: "OpenCombine")]),
        .target(name: "notify", dependencies: ["CoreFoundationDarwin", "DarwinNotify"]),
        .target(name: "Security", dependencies: ["CoreFoundationDarwin", "FacadeCore"]),
        .target(name: "SQLite3", dependencies: ["CSQLite3", "CSQLiteDefaults", "CoreFoundationDarwin"]),
        // The slice of UIKit shared-device code touches: the app delegate's lifecycle, driven by the host.
        .target(name: "UIKit", dependencies: ["CoreFoundationDarwin", "DeviceHost", "FacadeCore"]),
        // SwiftUI's app lifecycle, driven by the host, and views that render nothing.
        // Swift 5 mode, as Apple's SwiftUI is declared (@preconcurrency) for the code written on it.
        .target(
            name: "SwiftUI", dependencies: ["Combine", "DeviceHost", "SwiftUIMacros", "UIKit"], swiftSettings: appCode),
        .macro(
            name: "SwiftUIMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]),
        // Writes, at build time, how each `@UIApplicationDelegateAdaptor` delegate type is made
        // (Sources/AppDelegateAdaptors/plugin.swift says why).
        .plugin(
            name: "AppDelegateAdaptors", capability: .buildTool(), dependencies: ["sdlab-adaptors"],
            path: "Sources/AppDelegateAdaptors"),
        .executableTarget(name: "sdlab-adaptors", path: "Sources/sdlab-adaptors"),
        // MSAL and AWSDK bring UIKit, as their umbrella headers do on iOS (UIKit needs neither).
        .target(
            name: "MSAL",
            dependencies: ["CoreFoundationDarwin", "FacadeCore", "SDKClients", "SharedDevice", "UIKit"]),
        .target(
            name: "AWSDK",
            dependencies: ["CoreFoundationDarwin", "FacadeCore", "SDKClients", "SharedDevice", "UIKit"]),
        // MSAL Android's single-account API (no UIKit: an Android app has none).
        .target(name: "MSALAndroid", dependencies: ["FacadeCore", "SDKClients", "SharedDevice"]),

        // MARK: App runtime
        // Runs an app in a device, a team's and the built-in one: the App1 object, the trace,
        // the sandbox, and the scan of its bytes.
        .target(
            name: "DeviceHost",
            dependencies: [
                "AppCommandLine", "CSystem", "DBusKit", "DeviceContract", "DeviceProcesses", "FacadeCore",
                "LeakScan", "SDKClients", "SharedDevice",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // MARK: Apps
        // The built-in app (`sdlab-app`): an app like a team's, on the SDK facades, run by the
        // host; its container, its declared cleanups and their journal.
        .target(
            name: "BuiltInApp",
            dependencies: [
                "AWSDK", "DeviceContract", "DeviceHost", "DeviceProcesses", "FacadeCore", "MSAL", "MSALAndroid",
                "SDKClients", "SharedDevice", "UIKit", "notify", .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The app process the runner starts (`sdlab app` without the rest of sdlab), beside sdlab.
        .executableTarget(
            name: "sdlab-app",
            dependencies: [
                "BuiltInApp"
            ],
            linkerSettings: fleetApp
        ),
        // Examples of a team's own app code, each in a correct and a broken variant
        // (Scenarios/team-*.yaml run them). Written as app code is, in Swift 5 mode; each variant's
        // entry only picks the mistake it ships with.
        exampleApp("MSALNotes", ["DeviceHost", "MSAL", "Security", "UIKit"], exclude: ["Info.plist"]),
        // Linked as Docs/your-app.md advises a team to build an app for fleets: `sdlab bench
        // --executable` measures it.
        exampleEntry("ExampleMSALNotes", of: "MSALNotes", linkerSettings: fleetApp),
        exampleEntry("ExampleMSALNotesForgetsCaches", of: "MSALNotes"),
        exampleEntry("ExampleMSALNotesForgetsKeychain", of: "MSALNotes"),
        exampleEntry("ExampleMSALNotesForgetsDefaults", of: "MSALNotes"),
        exampleEntry("ExampleMSALNotesExportsOutside", of: "MSALNotes"),
        // Not a mistake: the notes app that also checks the account on its way to the background,
        // under a background task (behaviour.md §7).
        exampleEntry("ExampleMSALNotesChecksOnBackground", of: "MSALNotes"),
        exampleEntry("ExampleMSALNotesLeavesTaskOpen", of: "MSALNotes"),
        exampleApp("WS1Inventory", ["AWSDK", "DeviceHost", "UIKit"]),
        exampleEntry("ExampleWS1Inventory", of: "WS1Inventory"),
        exampleEntry("ExampleWS1InventoryForgetsAppSupport", of: "WS1Inventory"),
        // Not a mistake: a Workspace ONE delegate in the vendor's sample's style (AWLog* in every
        // callback, the SDK's account against the console's user), imports as it writes them.
        .executableTarget(
            name: "ExampleWS1VendorStyle", dependencies: ["AWSDK", "DeviceHost", "UIKit"],
            path: "Sources/Examples/WS1VendorStyle", swiftSettings: appCode),
        exampleApp("SQLiteShifts", ["DeviceHost", "MSAL", "SQLite3", "UIKit"]),
        exampleEntry("ExampleSQLiteShifts", of: "SQLiteShifts"),
        exampleEntry("ExampleSQLiteShiftsLeavesWAL", of: "SQLiteShifts"),
        // A SwiftUI app whose scene phase drives the account check; the broken variant forgets the
        // previews in Caches. Its Darwin-center helper is TeamNotes' (linked), which imports
        // Foundation alone.
        exampleApp(
            "SwiftUINotes", ["DeviceHost", "MSAL", "Security", "SwiftUI"],
            swiftSettings: appCode + [foundationBringsSecurity]),
        exampleEntry("ExampleSwiftUINotes", of: "SwiftUINotes"),
        exampleEntry("ExampleSwiftUINotesForgetsCaches", of: "SwiftUINotes"),
        // A scene-based app (iOS 13 and later): the scene delegate checks the account; the broken
        // variant left its check in the app delegate's foreground method, which iOS never calls then.
        exampleApp("MSALScenes", ["DeviceHost", "MSAL", "UIKit"]),
        exampleEntry("ExampleMSALScenes", of: "MSALScenes"),
        exampleEntry("ExampleMSALScenesChecksInAppDelegate", of: "MSALScenes"),
        // The app `sdlab init` writes into a team's package, file for file (it copies them from
        // here), built here with the one setting that package's target adds.
        .executableTarget(
            name: "ExampleTeamNotes", dependencies: ["DeviceHost", "MSAL", "Security", "UIKit"],
            path: "Sources/Examples/TeamNotes", exclude: ["Info.plist"],
            swiftSettings: appCode + [foundationBringsSecurity]),
        // The SwiftUI app `sdlab init --swiftui` writes: its helpers are TeamNotes' (linked).
        .executableTarget(
            name: "ExampleTeamSwiftUINotes", dependencies: ["DeviceHost", "MSAL", "Security", "SwiftUI"],
            path: "Sources/Examples/TeamSwiftUINotes", exclude: ["Info.plist"],
            swiftSettings: appCode + [foundationBringsSecurity], plugins: ["AppDelegateAdaptors"]),
        // A hostile app for the fence's tests: it keeps each record outside its container by
        // every route the fence must close (Tests/EndToEndTests/FenceTests.swift).
        .target(name: "CFenceEscapes", path: "Tests/Fixtures/CFenceEscapes"),
        .executableTarget(
            name: "FenceEscapes", dependencies: ["CFenceEscapes", "DeviceHost", "MSAL", "UIKit"],
            path: "Tests/Fixtures/FenceEscapes", swiftSettings: appCode),
        // An app without an app delegate, started with DeviceHost.main(app:) (MainEntryTests).
        .executableTarget(
            name: "MainSwiftApp", dependencies: ["DeviceHost", "MSAL", "UIKit"], path: "Tests/Fixtures/MainSwiftApp",
            swiftSettings: appCode),

        // MARK: Runner
        // Scenario files: YAML into a validated model, every node with its file:line:col.
        .target(
            name: "Scenario",
            dependencies: [
                "DeviceContract", "DeviceProcesses", "SharedDevice", .product(name: "Yams", package: "Yams"),
                // Yams conforms its decoder to Combine's TopLevelDecoder wherever a module named
                // Combine is in sight when it is compiled; whatever links it then links Combine too.
                "Combine",
            ]),
        // What a run found, as values: each step's failures, the session changes' timings, the
        // scan at the end. Reports and the terminal print them; nothing here runs anything.
        .target(
            name: "RunResults",
            dependencies: [
                "DeviceContract", "LeakScan", "Scenario", "SharedDevice",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]),
        // Runs a scenario on a device: drives the steps, checks the expectations.
        .target(
            name: "Runner",
            dependencies: [
                "DBusKit", "DeviceContract", "DeviceLaunch", "HubFiles", "DeviceProcesses", "SharedDevice", "Scenario",
                "LeakScan", "RunResults",
            ]),
        // `sdlab fuzz`: seeded random fault sequences on a simulated device, then as scenarios on
        // real devices; a failure shrunk to a scenario file.
        .target(name: "Faults", dependencies: ["DeviceProcesses", "RunResults", "Runner", "Scenario", "SharedDevice"]),
        // What a run produces: JUnit, JSON, timing CSV, the merged trace, the HTML page.
        .target(
            name: "Reports",
            dependencies: ["DeviceContract", "DeviceProcesses", "LeakScan", "RunResults", "Scenario", "SharedDevice"]),
        // `sdlab bench`: broadcast timing of fleets, against the C baseline in the same run.
        .target(
            name: "Bench",
            dependencies: [
                "BuiltInApp", "CFloor", "DBusKit", "DeviceContract", "DeviceLaunch", "DeviceProcesses", "HubFiles",
                "RunResults", "SharedDevice",
            ]),
        .executableTarget(
            name: "sdlab",
            dependencies: [
                "AppCommandLine", "Bench", "DBusKit", "DeviceContract", "DeviceLaunch", "DeviceProcesses", "Faults",
                "Hub", "HubFiles", "LeakScan", "Reports", "Runner", "RunResults", "Scenario", "SharedDevice",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: Floor
        // The plain-C floor `sdlab bench` holds the fleets against, built next to sdlab: posts
        // and broker checks over the same bus with libdbus and nothing on top (Sources/CFloor).
        .target(name: "CFloor", dependencies: ["CDBus"]),
        plainC("FloorEmitter", dependencies: ["CFloor"]),
        plainC("FloorReceiver", dependencies: ["CFloor"]),
        plainC("FloorBroker", dependencies: ["CFloor"]),
        // Not a test: DBusKit timed against an external C floor (--baseline).
        .executableTarget(
            name: "DBusKitBenchmark",
            dependencies: [
                "DBusKit", "DeviceProcesses",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: Tests, layer by layer in the order above
        // Helpers the test targets share: running commands and the built sdlab.
        .target(name: "TestSupport", dependencies: ["DeviceProcesses"], path: "Tests/TestSupport"),
        // The device a test starts in its own process: a private bus, the real hub, the console.
        .target(
            name: "DeviceTestKit",
            dependencies: [
                "DBusKit", "DeviceContract", "DeviceProcesses", "Hub", "HubFiles", "SharedDevice", "TestSupport",
            ],
            path: "Tests/DeviceTestKit"),
        // System and bus.
        .testTarget(name: "DBusKitTests", dependencies: ["DBusKit", "DeviceProcesses", "TestSupport"]),
        // Domain.
        .testTarget(name: "SharedDeviceTests", dependencies: ["SharedDevice"]),
        // Device plumbing.
        .testTarget(
            name: "DeviceContractTests",
            dependencies: ["DBusKit", "DeviceContract", "Scenario", "SharedDevice", "TestSupport"]),
        .testTarget(name: "AppCommandLineTests", dependencies: ["AppCommandLine", "DeviceContract", "SharedDevice"]),
        .testTarget(
            name: "LeakScanTests",
            dependencies: [
                "CBzip2", "CFileAccess", "CFormatLibraries", "CLzma", "CZlib", "CZstd", "DeviceProcesses",
                "LeakScan", "SharedDevice", "TestSupport", .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Device services.
        .testTarget(name: "HubTests", dependencies: ["Hub", "HubFiles", "SharedDevice", "TestSupport"]),
        // SDK core.
        .testTarget(
            name: "SDKClientsTests",
            dependencies: [
                "DBusKit", "DeviceContract", "DeviceProcesses", "Hub", "HubFiles", "SDKClients", "SharedDevice",
                "DeviceTestKit", "TestSupport",
            ]),
        // Facades.
        .testTarget(
            name: "NotifyTests",
            dependencies: [
                "CoreFoundationDarwin", "DarwinNotify", "DBusKit", "DeviceContract", "DeviceProcesses", "FacadeCore",
                "Hub", "HubFiles", "notify", "SharedDevice", "DeviceTestKit", "TestSupport",
            ]),
        .testTarget(name: "SecurityTests", dependencies: ["CoreFoundationDarwin", "FacadeCore", "Security"]),
        .testTarget(name: "SQLite3Tests", dependencies: ["CSQLiteDefaults", "SQLite3"]),
        // Team files that import Foundation alone, built with the one setting a team's target
        // adds (Docs/your-app.md): the implicit import of Security, which brings the keychain,
        // the CF names and the Darwin center.
        .testTarget(
            name: "FoundationAloneTests", dependencies: ["Combine", "Security", "UserNotifications"],
            swiftSettings: appCode + [foundationBringsSecurity]),
        .testTarget(name: "UIKitTests", dependencies: ["DeviceHost", "FacadeCore", "SharedDevice", "UIKit"]),
        .testTarget(name: "SwiftUITests", dependencies: ["SwiftUI"], swiftSettings: appCode),
        .testTarget(name: "DeviceHostTests", dependencies: ["DeviceHost", "SharedDevice"]),
        // Swift Testing declares an overlay for Apple's UIKit (`_Testing_UIKit`), which a test that
        // also sees our UIKit would look for; there is none off Apple platforms.
        .testTarget(
            name: "FacadeTests",
            dependencies: [
                "AWSDK", "DBusKit", "DeviceContract", "DeviceProcesses", "FacadeCore", "Hub", "HubFiles", "MSAL",
                "MSALAndroid", "SDKClients", "SharedDevice", "DeviceTestKit", "TestSupport",
            ],
            swiftSettings: [.unsafeFlags(["-Xfrontend", "-disable-cross-import-overlays"])]),
        // Apps.
        .testTarget(
            name: "BuiltInAppTests",
            dependencies: [
                "BuiltInApp", "DeviceHost", "DeviceProcesses", "SDKClients", "SharedDevice", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Runner.
        .testTarget(
            name: "ScenarioTests",
            dependencies: ["DeviceContract", "Faults", "Scenario", "SharedDevice", "TestSupport"]),
        .testTarget(
            name: "RunResultsTests", dependencies: ["DeviceContract", "LeakScan", "RunResults", "SharedDevice"]),
        .testTarget(name: "RunnerTests", dependencies: ["DeviceContract", "Runner", "RunResults"]),
        .testTarget(
            name: "FaultsTests", dependencies: ["Faults", "RunResults", "Scenario", "SharedDevice", "TestSupport"]),
        .testTarget(
            name: "ReportsTests",
            dependencies: ["DeviceContract", "LeakScan", "Reports", "RunResults", "Scenario", "SharedDevice"]),
        .testTarget(
            name: "BenchTests",
            dependencies: ["Bench", "DeviceContract", "DeviceProcesses", "RunResults", "TestSupport"]),
        // Whole devices and the sdlab command, end to end.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "DBusKit", "DeviceContract", "DeviceLaunch", "DeviceProcesses", "Faults", "HubFiles", "LeakScan",
                "SDKClients", "SharedDevice", "TestSupport",
            ],
            exclude: ["Scenarios"]),
    ],
    swiftLanguageModes: [.v6]
)
