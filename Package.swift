// swift-tools-version:6.1
// SPDX-License-Identifier: Apache-2.0
// Coffer: a Secret Service provider (cofferd), Apple's SecItem API for Swift on Linux (Security, CofferKeychain),
// and the `coffer` command-line tool.

import PackageDescription

/// Settings every Swift target shares: Swift 6 mode plus the import and existential rules the
/// architecture asks for (C stays private to the two wrapper modules).
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("ExistentialAny"),
]

let log = Target.Dependency.product(name: "Logging", package: "swift-log")
let lifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let unixSignals = Target.Dependency.product(name: "UnixSignals", package: "swift-service-lifecycle")
let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")

let package = Package(
    name: "Coffer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "cofferd", targets: ["cofferd"]),
        .executable(name: "coffer", targets: ["coffer"]),
        .library(name: "Security", targets: ["Security"]),
        .library(name: "CofferKeychain", targets: ["CofferKeychain"]),
        // `import Keychain` of earlier releases: re-exports CofferKeychain (and so Security).
        .library(name: "Keychain", targets: ["Keychain"]),
        .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
        .library(name: "SecretServiceClient", targets: ["SecretServiceClient"]),
        // The internal modules, for the micro-benchmarks package in Benchmarks/Micro (not a supported API).
        .library(
            name: "CofferInternals",
            targets: ["DBusWire", "DBusTransport", "SecretCrypto", "SecretServiceProtocol", "SecretStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    ],
    targets: [
        // MARK: - C at the edge
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CGcrypt", pkgConfig: "libgcrypt", providers: [.apt(["libgcrypt20-dev"])]),
        // prctl(PR_SET_DUMPABLE), setrlimit, mallopt and malloc_trim for cofferd and the daemon, posix_spawn's
        // close-from action for every child we start (the pinentry, takeover's cofferd, the tests' bus daemons);
        // no library to link.
        .systemLibrary(name: "CHardening"),

        // MARK: - Libraries
        .target(name: "DBusWire", swiftSettings: strict),
        .target(name: "DBusTransport", dependencies: ["DBusWire", "CDBus", log], swiftSettings: strict),
        .target(name: "SecretCrypto", dependencies: ["CGcrypt"], swiftSettings: strict),
        .target(name: "SecretServiceProtocol", dependencies: ["DBusWire"], swiftSettings: strict),
        .target(
            name: "SecretStore", dependencies: ["SecretServiceProtocol", "SecretCrypto", "CollectionSync", log],
            exclude: ["Persistence/FORMAT.md"], swiftSettings: strict),
        .target(
            name: "SecretServiceDaemon",
            dependencies: [
                "DBusTransport", "SecretStore", "SecretServiceProtocol", "SecretCrypto", "CHardening", log, lifecycle,
            ],
            swiftSettings: strict),
        .target(
            name: "SecretServiceClient",
            dependencies: ["DBusTransport", "SecretServiceProtocol", "SecretCrypto", log],
            swiftSettings: strict),
        // Synchronized collections: per-device journals in a folder a sync engine carries, and their merge
        // (docs/SYNC.md). Pure Swift over SecretCrypto; the store writes synchronized collections' journals with it,
        // `coffer sync status` reads a folder.
        .target(name: "CollectionSync", dependencies: ["SecretCrypto"], swiftSettings: strict),
        .target(name: "KeyringFiles", dependencies: ["SecretCrypto"], exclude: ["ARCHIVE.md"], swiftSettings: strict),
        // LAContext for Linux, in a module of Apple's name so iOS code that imports LocalAuthentication builds.
        .target(name: "LocalAuthentication", swiftSettings: strict),
        // The settings the SecItem functions run with; its own module so `Security` holds Apple's names only and
        // the Swift-style front re-exports it.
        .target(name: "CofferKeychainConfiguration", swiftSettings: strict),
        // Apple's SecItem API under Apple's module name, so iOS code that imports Security builds unchanged.
        .target(
            name: "Security",
            dependencies: [
                "LocalAuthentication", "CofferKeychainConfiguration", "SecretServiceClient", "SecretServiceProtocol",
                "SecretCrypto", "DBusWire",
            ],
            swiftSettings: strict),
        // The Swift-style `Keychain` type and `KeychainConfiguration`, in a module whose name no app type takes.
        .target(name: "CofferKeychain", dependencies: ["Security", "CofferKeychainConfiguration"], swiftSettings: strict),
        .target(name: "Keychain", dependencies: ["CofferKeychain"], path: "Sources/KeychainCompatibility", swiftSettings: strict),

        // MARK: - Executables
        .executableTarget(
            name: "cofferd", dependencies: ["SecretServiceDaemon", "SecretStore", "SecretCrypto", "CHardening", argumentParser, log, lifecycle, unixSignals],
            // The function order the installed binary is linked with (Makefile, STATIC_LAYOUT).
            exclude: ["cofferd.order"], swiftSettings: strict),
        .executableTarget(
            name: "coffer",
            dependencies: [
                "Security", "CofferKeychain", "SecretServiceClient", "SecretServiceProtocol", "SecretCrypto", "DBusWire",
                "DBusTransport", "CHardening",
                "KeyringFiles", "SecretStore", "CollectionSync", argumentParser,
            ],
            swiftSettings: strict),
        // Writes the man pages from the commands' --experimental-dump-help at install time (see the Makefile).
        .executableTarget(name: "coffer-manual", dependencies: [argumentParser], swiftSettings: strict),

        // MARK: - Tests
        .target(
            name: "SecretServiceTestSupport",
            dependencies: ["DBusTransport", "SecretServiceClient", "SecretServiceDaemon", "DBusWire", "CHardening", log, lifecycle],
            path: "Tests/SecretServiceTestSupport", swiftSettings: strict),
        .testTarget(name: "DBusWireTests", dependencies: ["DBusWire"], swiftSettings: strict),
        .testTarget(
            name: "DBusTransportTests", dependencies: ["DBusTransport", "DBusWire", "SecretServiceTestSupport"],
            swiftSettings: strict),
        .testTarget(name: "SecretCryptoTests", dependencies: ["SecretCrypto"], swiftSettings: strict),
        .testTarget(name: "SecretServiceProtocolTests", dependencies: ["SecretServiceProtocol"], swiftSettings: strict),
        .testTarget(name: "CollectionSyncTests", dependencies: ["CollectionSync", "SecretCrypto"], swiftSettings: strict),
        .testTarget(name: "SecretStoreTests", dependencies: ["SecretStore", "SecretCrypto", "CollectionSync"], swiftSettings: strict),
        .testTarget(
            name: "SecretServiceDaemonTests",
            dependencies: ["SecretServiceDaemon", "SecretServiceProtocol", "SecretStore", "DBusWire", "SecretCrypto", log],
            swiftSettings: strict),
        .testTarget(
            name: "SecretServiceIntegrationTests",
            dependencies: ["SecretServiceTestSupport", "SecretServiceClient", "SecretServiceProtocol", "DBusWire", "DBusTransport", "SecretStore"],
            swiftSettings: strict),
        .testTarget(
            name: "KeychainTests", dependencies: ["Security", "CofferKeychain", "LocalAuthentication", "SecretServiceTestSupport", "SecretServiceClient"],
            swiftSettings: strict),
        // A second process for the Keychain cross-process uniqueness test (`swift build --build-tests` builds it).
        .executableTarget(
            name: "keychain-race-helper", dependencies: ["Keychain"], path: "Tests/KeychainRaceHelper",
            swiftSettings: strict),
        // The Keychain library's rows of `make bench` (Benchmarks/run.py --keychain-bench).
        .executableTarget(
            name: "keychain-bench", dependencies: ["Security"], path: "Benchmarks/KeychainBench",
            swiftSettings: strict),
        .testTarget(name: "ArchitectureTests", swiftSettings: strict),
        .testTarget(
            name: "KeyringFilesTests",
            dependencies: ["KeyringFiles", "SecretCrypto", "SecretServiceTestSupport", "SecretServiceClient", "DBusWire"],
            swiftSettings: strict),
        .testTarget(
            name: "CofferCLITests",
            dependencies: [
                "SecretServiceTestSupport", "SecretServiceClient", "DBusWire", "DBusTransport", "CollectionSync",
                "SecretCrypto",
            ],
            swiftSettings: strict),
    ]
)
