// SPDX-License-Identifier: Apache-2.0
// The cofferd command: parses options, hardens the process, and runs the Secret Service until told to stop.

import ArgumentParser
import CHardening
import Logging
import SecretCrypto
import SecretServiceDaemon
import SecretStore
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// The entry point. The process-wide hardening comes first, on the main thread, before the concurrency pool has
/// started a thread: a thread that allocates before the single-arena setting keeps an arena of its own, and how many
/// did so by the time `run()` began depended on the machine's load.
@main
enum CofferdEntry {
    static func main() async {
        Hardening.apply()
        await Cofferd.main()
    }
}

struct Cofferd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cofferd",
        abstract: "A Secret Service provider (org.freedesktop.secrets) for the D-Bus session bus.",
        discussion: """
            Exit status: 0 after a clean shutdown (SIGTERM, SIGINT, the bus closing, or, with --allow-replacement, \
            a --replace by another provider); \(ExitStatus.failure) on other failures; \(ExitStatus.badConfig) when the configuration file \
            cannot be read or is malformed (one line names the file, the line and the problem); \
            \(ExitStatus.nameTaken) when another provider owns org.freedesktop.secrets (with --replace: when it \
            does not allow replacement, checked before any file is created); \(ExitStatus.noBus) when there \
            is no bus to connect to; \(ExitStatus.dataDirectoryInUse) when another cofferd holds the data directory \
            (one line names the directory and that process's pid; a cofferd that is stopping on the same bus is \
            waited for, up to \(SecretServiceDaemon.handoverTimeout.components.seconds) s); \(ExitStatus.dataDirectoryUnusable) when the data \
            directory cannot be created or opened (one line names the path and the reason, such as a read-only \
            home); \(ExitStatus.badArguments) when the command line is invalid (an unknown option or a bad value).

            When systemd passes credentials ($CREDENTIALS_DIRECTORY, from LoadCredentialEncrypted= in the unit), \
            the credential coffer-<collection> unlocks that collection at start through its systemd-credential key \
            slot; `coffer key-slots` makes both.

            Settings such as auto-lock are read from $XDG_CONFIG_HOME/coffer/cofferd.conf (else \
            $HOME/.config/coffer/cofferd.conf); a missing file means the defaults. The format is in \
            CONFIGURATION.md in Coffer's documentation directory (/usr/share/doc/coffer, or \
            /usr/local/share/doc/coffer after `make install`).
            """,
        version: CofferVersion.string)

    @Flag(help: "Take org.freedesktop.secrets over from the provider that owns it, if that provider allows replacement (gnome-keyring and KeePassXC do not: run `coffer takeover` to switch from them).")
    var replace = false

    @Flag(help: "Let another provider take org.freedesktop.secrets over (its --replace). Off by default, since any program on the bus could then take the name and receive the secrets clients send; the configuration file can also turn it on.")
    var allowReplacement = false

    @Flag(help: "Run attached to the terminal. cofferd never forks, so this is the only mode; the flag is accepted for compatibility with gnome-keyring-daemon command lines.")
    var foreground = false

    @Option(help: ArgumentHelp("Serve on this bus address instead of the session bus.", valueName: "address"))
    var address: String?

    @Option(help: ArgumentHelp("Keep collection files here (default: $XDG_DATA_HOME/coffer).", valueName: "directory"))
    var dataDir: String?

    @Flag(help: "Keep every collection in memory only; nothing is written to disk.")
    var memoryOnly = false

    @Flag(help: "Read the login password from standard input and unlock the login collection with it, creating the collection on first start (on a terminal the new password is asked twice). An empty password is ignored with a warning.")
    var unlock = false

    @Option(help: ArgumentHelp("Argon2id passes for new passwords; existing collections keep theirs.", valueName: "count"))
    var kdfIterations: UInt32 = Argon2idParameters.default.iterations

    @Option(help: ArgumentHelp("Argon2id memory in KiB for new passwords.", valueName: "KiB"))
    var kdfMemory: UInt32 = Argon2idParameters.default.memoryKiB

    @Option(help: ArgumentHelp("The pinentry program that asks for passwords (any GnuPG pinentry: -gnome3, -qt, -curses, -tty).", valueName: "program"))
    var pinentry = "pinentry"

    @Option(help: ArgumentHelp("Dismiss a password prompt nobody answered after this many seconds.", valueName: "seconds"))
    var promptTimeout = 300

    @Option(help: ArgumentHelp("Read settings from this file instead of $XDG_CONFIG_HOME/coffer/cofferd.conf; it must exist.", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("Access control for collections the configuration file gives no access-control of their own: off, ask (the default) or strict. Overrides access-control under [defaults]; see docs/ACCESS-CONTROL.md.", valueName: "mode"))
    var accessControl: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
        if memoryOnly && (dataDir != nil || unlock) {
            throw ValidationError("--memory-only cannot be combined with --data-dir or --unlock")
        }
        let cost = Argon2idParameters(iterations: kdfIterations, memoryKiB: kdfMemory, parallelism: 1)
        guard cost.isWithinWrapBounds else {
            throw ValidationError("--kdf-iterations must be 1 to \(Argon2idParameters.maximumWrapIterations), "
                + "--kdf-memory 8 to \(Argon2idParameters.maximumWrapMemoryKiB) KiB, and their product at most "
                + "\(Argon2idParameters.maximumWrapWork)")
        }
        guard promptTimeout > 0 else { throw ValidationError("--prompt-timeout must be positive") }
        if let dataDir, !dataDir.hasPrefix("/") {
            throw ValidationError("--data-dir must be an absolute path")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "cofferd")
        var settings = Self.loadSettings(from: config)
        if let accessControl {
            guard let mode = AccessControl(rawValue: accessControl) else {
                Self.fail("--access-control: expected off, ask or strict, not '\(accessControl)'",
                          status: ExitStatus.failure)
            }
            settings.accessPolicy.defaults = mode
        }
        do {
            try SecretCrypto.initialize()
        } catch {
            Self.fail("cannot initialise secure memory: \(error)", status: ExitStatus.failure)
        }
        // Keys and passwords must never reach swap: without locked secure memory, refuse to run.
        guard SecretCrypto.isSecureMemoryLocked else {
            Self.fail("cannot lock 1 MiB of secure memory into RAM; raise the memory-lock limit (ulimit -l, or "
                + "LimitMEMLOCK= in the systemd unit)", status: ExitStatus.failure)
        }
        let directory = memoryOnly ? nil : (dataDir ?? DataDirectory.standard)
        if !memoryOnly && directory == nil {
            Self.fail("no data directory: set HOME or XDG_DATA_HOME, or pass --data-dir", status: ExitStatus.failure)
        }
        let loginPassword: LoginPasswordInput? = unlock ? Self.loginPasswordInput(directory: directory) : nil
        var configuration = DaemonConfiguration(
            busAddress: address, replace: replace, allowReplacement: allowReplacement || settings.allowReplacement,
            prompter: PinentryPrompter(
                configuration: .init(program: pinentry, timeout: .seconds(promptTimeout)),
                logger: Logger(label: "cofferd.pinentry")),
            dataDirectory: directory, loginPassword: loginPassword,
            loginChannelDirectory: Self.loginChannelDirectory(),
            credentialsDirectory: Self.credentialsDirectory,
            keyDerivation: Argon2idParameters(iterations: kdfIterations, memoryKiB: kdfMemory, parallelism: 1),
            autoLock: settings.autoLock, loginSessionID: Environment.value("XDG_SESSION_ID"),
            accessPolicy: settings.accessPolicy)
        configuration.syncFolders = settings.syncFolders
        let daemon = SecretServiceDaemon(configuration: configuration, logger: logger)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: daemon, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        do {
            try await group.run()
        } catch let error as DaemonError {
            switch error {
            case .nameTaken: Self.fail("\(error)", status: ExitStatus.nameTaken)
            case .noBus: Self.fail("\(error)", status: ExitStatus.noBus)
            case .dataDirectoryInUse: Self.fail("\(error)", status: ExitStatus.dataDirectoryInUse)
            case .dataDirectoryUnusable: Self.fail("\(error)", status: ExitStatus.dataDirectoryUnusable)
            }
        } catch let error as ServiceGroupError {
            Self.fail("\(error)", status: ExitStatus.failure)
        }
    }

    /// `--unlock`'s password. A password that creates `login`, or one typed on a terminal (whose prompt must not
    /// mix with the log), is read now; otherwise cofferd reads it while it serves, so a login manager that writes it
    /// late holds back only the calls that need `login`.
    static func loginPasswordInput(directory: String?) -> LoginPasswordInput? {
        let creating = directory.map { !SecretStore.hasCollectionFile(LoginKeyring.collectionID, in: $0) } ?? false
        guard creating || isatty(STDIN_FILENO) == 1 else {
            return .later {
                do {
                    return try readLoginPassword(creating: false)
                } catch {
                    warn("cannot read the login password: \(error); the login collection is left locked")
                    return nil
                }
            }
        }
        do {
            return try readLoginPassword(creating: creating).map(LoginPasswordInput.given)
        } catch {
            fail("cannot read the login password: \(error)", status: ExitStatus.failure)
        }
    }

    /// Reads the login password; an empty one is `nil`, with a warning.
    /// - Throws: ``LoginPassword/ReadError``.
    static func readLoginPassword(creating: Bool) throws(LoginPassword.ReadError) -> SecretBytes? {
        let password = try LoginPassword.read(creating: creating)
        // An empty password would create a collection anyone could open; it is taken as no password at all.
        guard password.isEmpty else { return password }
        warn("--unlock read an empty password; the login collection is " + (creating ? "not created" : "left locked"))
        return nil
    }

    /// systemd's `$CREDENTIALS_DIRECTORY` for this service, when it is an absolute path.
    static var credentialsDirectory: String? {
        guard let path = Environment.value("CREDENTIALS_DIRECTORY"), path.hasPrefix("/") else {
            return nil
        }
        return path
    }

    /// Reads the configuration file named with `--config`, else the standard one if it exists; exits on any problem
    /// rather than run with settings the user did not ask for.
    static func loadSettings(from explicitPath: String?) -> ConfigFile {
        guard let path = explicitPath ?? ConfigFile.standardPath(environment: Environment.configurationVariables)
        else { return ConfigFile() }
        do {
            return try ConfigFile.load(path: path, required: explicitPath != nil)
        } catch {
            fail("\(error)", status: ExitStatus.badConfig)
        }
    }

    /// `$XDG_RUNTIME_DIR/coffer`, where the PAM module finds cofferd (docs/PAM.md); none without a runtime directory.
    static func loginChannelDirectory() -> String? {
        guard let runtime = Environment.value("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") else {
            return nil
        }
        return runtime + "/coffer"
    }

    /// Prints one line to standard error and goes on.
    static func warn(_ message: String) {
        var line = "cofferd: warning: " + message + "\n"
        line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// Prints one line to standard error and exits with `status`.
    static func fail(_ message: String, status: Int32) -> Never {
        var line = "cofferd: " + message + "\n"
        line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
        Glibc.exit(status)
    }
}

/// cofferd's documented exit statuses.
enum ExitStatus {
    static let failure: Int32 = 1
    static let badConfig: Int32 = 2
    static let nameTaken: Int32 = 3
    static let noBus: Int32 = 4
    static let dataDirectoryInUse: Int32 = 5
    static let dataDirectoryUnusable: Int32 = 6
    /// swift-argument-parser's status for a usage error (EX_USAGE); listed here so the help can name it.
    static let badArguments: Int32 = ExitCode.validationFailure.rawValue
}

/// Process-wide protections applied before any secret is handled.
enum Hardening {
    static func apply() {
        // A core file or a debugger attached by another same-user process would expose secrets held in memory.
        _ = chardening_disable_core_files()
        _ = chardening_disable_dumping()
        // libdbus and Swift copy a plain session's secrets into ordinary heap blocks we cannot wipe ourselves.
        _ = chardening_wipe_freed_memory()
        // Resident memory, not protection: threads share one heap instead of one arena each.
        _ = chardening_use_one_malloc_arena()
    }
}
