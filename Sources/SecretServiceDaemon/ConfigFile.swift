// SPDX-License-Identifier: Apache-2.0
// cofferd's settings file: where it lives, reading it, and the one-line error that stops cofferd when it is wrong.

#if canImport(Glibc)
import Glibc
#endif

/// The settings read from `cofferd.conf` (format: docs/CONFIGURATION.md). A missing file means the defaults.
public struct ConfigFile: Sendable, Hashable {
    /// The `lock-after-idle` and `lock-after` settings.
    public var autoLock: AutoLockPolicy
    /// `allow-replacement`: whether another provider may take `org.freedesktop.secrets` over.
    public var allowReplacement: Bool
    /// The `access-control` settings (docs/ACCESS-CONTROL.md).
    public var accessPolicy: AccessPolicy
    /// `sync-folder` by collection id: the folder each synchronized collection's journals are in (docs/SYNC.md).
    public var syncFolders: [String: String]

    public init(autoLock: AutoLockPolicy = .off, allowReplacement: Bool = false,
                accessPolicy: AccessPolicy = AccessPolicy(), syncFolders: [String: String] = [:]) {
        self.autoLock = autoLock
        self.allowReplacement = allowReplacement
        self.accessPolicy = accessPolicy
        self.syncFolders = syncFolders
    }

    /// Larger files are refused: the format needs a few lines, and reading stays bounded.
    static let maximumBytes = 64 * 1024

    /// `$XDG_CONFIG_HOME/coffer/cofferd.conf`, else `$HOME/.config/coffer/cofferd.conf`; `nil` when neither is set.
    /// A relative `XDG_CONFIG_HOME` is ignored, as the XDG Base Directory specification asks.
    public static func standardPath(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/coffer/cofferd.conf" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/coffer/cofferd.conf" }
        return nil
    }

    /// Reads and parses a settings file.
    /// - Parameters:
    ///   - path: the file.
    ///   - required: whether a missing file is an error (a file named with `--config`) rather than the defaults.
    /// - Throws: ``ConfigFileError`` naming the file, and the line when the problem is on one.
    public static func load(path: String, required: Bool) throws(ConfigFileError) -> ConfigFile {
        guard let bytes = try read(path) else {
            if required { throw ConfigFileError(file: path, line: nil, problem: "no such file") }
            return ConfigFile()
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigFileError(file: path, line: nil, problem: "not UTF-8 text")
        }
        return try ConfigFile(parsing: text, file: path)
    }

    /// The file's bytes, or `nil` when it does not exist.
    private static func read(_ path: String) throws(ConfigFileError) -> [UInt8]? {
        func failure(_ action: String) -> ConfigFileError {
            ConfigFileError(file: path, line: nil, problem: "cannot \(action): \(String(cString: strerror(errno)))")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw failure("open")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw failure("read") }
            if count == 0 { return bytes }
            bytes += buffer[..<count]
            guard bytes.count <= maximumBytes else {
                throw ConfigFileError(file: path, line: nil, problem: "larger than \(maximumBytes / 1024) KiB")
            }
        }
    }
}

/// Why a settings file was refused; its description is the one line cofferd prints before exiting.
public struct ConfigFileError: Error, CustomStringConvertible, Hashable {
    public var file: String
    /// 1-based; `nil` when the file as a whole is the problem.
    public var line: Int?
    public var problem: String

    public init(file: String, line: Int?, problem: String) {
        self.file = file
        self.line = line
        self.problem = problem
    }

    /// `FILE:LINE: problem`, the form editors and terminals make clickable.
    public var description: String {
        line.map { "\(file):\($0): \(problem)" } ?? "\(file): \(problem)"
    }
}
