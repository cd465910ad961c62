// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Keel",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "keel", targets: ["keel"]),
        .library(name: "Keel", targets: ["Keel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/stencilproject/Stencil", from: "0.15.1"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibSSH2",
            pkgConfig: "libssh2",
            providers: [.apt(["libssh2-1-dev"])]
        ),
        // crypt(3) of libxcrypt, for the bcrypt hashes the exporters' web configuration and HAProxy check.
        .systemLibrary(name: "CLibCrypt", pkgConfig: "libcrypt", providers: [.apt(["libcrypt-dev"])]),
        .target(name: "KeelCore"),
        .target(name: "KeelSSH", dependencies: ["KeelCore", "CLibSSH2"]),
        .target(
            name: "Keel",
            dependencies: ["KeelCore", "KeelSSH", "Yams", "Stencil", .product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "Playbooks",
            dependencies: [
                "Keel", "CLibCrypt", .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "playbooks", exclude: ["Examples"]),
        .target(name: "Examples", dependencies: ["Keel"], path: "playbooks/Examples"),
        .executableTarget(
            name: "keel",
            dependencies: [
                "Keel", "Playbooks", "Examples",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The project's structure rules (`make lint`).
        .target(name: "KeelLint"),
        .executableTarget(name: "keel-lint", dependencies: ["KeelLint"]),
        .testTarget(name: "KeelLintTests", dependencies: ["KeelLint"]),
        .testTarget(name: "KeelSSHTests", dependencies: ["KeelCore", "KeelSSH", "KeelTestSupport"]),
        .testTarget(name: "KeelTests", dependencies: ["Keel", "KeelTestSupport"]),
        .testTarget(name: "KeelCLITests", dependencies: ["Keel", "KeelTestSupport", "keel"]),
        .testTarget(
            name: "PlaybooksTests",
            dependencies: [
                "Playbooks", "Keel", "KeelTestSupport", "Yams", .product(name: "X509", package: "swift-certificates"),
            ]),
        .target(name: "KeelTestSupport", dependencies: ["Keel"], path: "Tests/KeelTestSupport"),
    ]
)
