// swift-tools-version:6.1
// SPDX-License-Identifier: Apache-2.0
// Micro-benchmarks of cofferd's hot paths (ordo-one/benchmark). A package of its own, so the main package's build and
// CI never compile it; run with `swift package benchmark` from this directory (see docs/PERFORMANCE.md).

import PackageDescription

let package = Package(
    name: "CofferMicroBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Coffer", path: "../.."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "HotPaths",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CofferInternals", package: "Coffer"),
            ],
            path: "Benchmarks/HotPaths",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ]
)
