// SPDX-License-Identifier: Apache-2.0
// The default prompter: asks the user through GnuPG's pinentry program (tty, curses, GNOME, Qt flavours).

#if canImport(Glibc)
import Glibc
#endif
public import Logging
import DBusWire
public import SecretCrypto

/// A ``PasswordPrompter`` that runs a pinentry program (GnuPG's Assuan protocol) for every prompt.
///
/// Each prompt starts a fresh pinentry, talks to it over its stdin and stdout, and ends it with `BYE`. Whatever
/// goes wrong (the program is missing, dies, hangs past ``Configuration/timeout``, answers `ERR`) ends the prompt
/// as dismissed. Cancelling the calling task (`Dismiss`, the client leaving the bus) terminates the program:
/// SIGTERM, then SIGKILL after ``Configuration/terminationGracePeriod``; the call returns once it is reaped.
///
/// Passwords arrive in `D` lines and are decoded straight into ``SecretBytes``.
public struct PinentryPrompter: PasswordPrompter {
    /// Which program to run and how.
    public struct Configuration: Sendable {
        /// The program: a name looked up in the `PATH` of ``environment``, or a path. Debian's `pinentry` is an
        /// alternatives symlink to the flavour the user picked.
        public var program: String
        /// Arguments for the program.
        public var arguments: [String]
        /// The program's complete environment. GUI pinentries need `DISPLAY` or `WAYLAND_DISPLAY` (and the
        /// session bus address) from here. By default, the daemon's variables listed in
        /// ``inheritedVariables`` and the locale's `LC_…`, and nothing else.
        public var environment: [String: String]
        /// The terminal for tty and curses pinentries (`OPTION ttyname`), with `TERM` and the locale from
        /// ``environment``; `nil` sends no terminal options.
        public var ttyName: String?
        /// How long one prompt may take in total before it ends as dismissed.
        public var timeout: Duration
        /// How long a program may take to exit after `BYE`, and after SIGTERM, before the next step.
        public var terminationGracePeriod: Duration
        /// Sees each step, for tests.
        var observer: (@Sendable (PinentryEvent) -> Void)?

        /// Creates a configuration.
        /// - Parameters:
        ///   - program: The program name or path; `pinentry` by default.
        ///   - arguments: Arguments for the program.
        ///   - environment: The program's complete environment; by default the part of the daemon's own that
        ///     ``inherited(from:)`` keeps.
        ///   - ttyName: The terminal; `nil` means `GPG_TTY` from `environment`, else the daemon's standard input
        ///     when that is a terminal, else none.
        ///   - timeout: The limit for one prompt; 5 minutes by default.
        ///   - terminationGracePeriod: See ``terminationGracePeriod``; 1 second by default.
        public init(program: String = "pinentry", arguments: [String] = [], environment: [String: String]? = nil,
                    ttyName: String? = nil, timeout: Duration = .seconds(300),
                    terminationGracePeriod: Duration = .seconds(1)) {
            let environment = environment ?? Self.inherited(from: ChildProcess.currentEnvironment())
            self.program = program
            self.arguments = arguments
            self.environment = environment
            self.ttyName = ttyName ?? Self.terminal(in: environment)
            self.timeout = timeout
            self.terminationGracePeriod = terminationGracePeriod
        }

        /// `GPG_TTY` (what gpg-agent uses), else the name of our standard input if it is a terminal.
        private static func terminal(in environment: [String: String]) -> String? {
            if let tty = environment["GPG_TTY"], !tty.isEmpty { return tty }
            guard isatty(STDIN_FILENO) == 1, let name = ttyname(STDIN_FILENO) else { return nil }
            return String(cString: name)
        }
    }

    /// The configuration.
    public let configuration: Configuration
    let logger: Logger

    /// Creates a prompter.
    /// - Parameters:
    ///   - configuration: Which program to run and how.
    ///   - logger: Where failures are logged (never passwords).
    public init(configuration: Configuration = Configuration(), logger: Logger = Logger(label: "coffer.pinentry")) {
        self.configuration = configuration
        self.logger = logger
    }

    // MARK: - Prompter

    /// A pinentry can be shown on a display (`DISPLAY` or `WAYLAND_DISPLAY` in its environment) or on a terminal
    /// (``Configuration/ttyName``), and only if the program exists; otherwise it would fail, or hang until the
    /// timeout, with nobody to see it.
    /// - Returns: ``PromptUnavailability/noDisplayOrTerminal``, or that the program is missing; `nil` when a
    ///   pinentry can be tried.
    public func unavailability() async -> PromptUnavailability? {
        let environment = configuration.environment
        let hasDisplay = ["DISPLAY", "WAYLAND_DISPLAY"].contains { !(environment[$0] ?? "").isEmpty }
        guard hasDisplay || configuration.ttyName != nil else { return .noDisplayOrTerminal }
        guard ChildProcess.resolve(configuration.program, environment: environment) != nil else {
            return .other("cannot ask for the password: the pinentry program '\(configuration.program)' is not installed")
        }
        return nil
    }

    /// Shows a confirmation (`CONFIRM`) for `request`.
    /// - Parameter request: What to ask.
    /// - Returns: Whether the user chose OK; `false` when dismissed, cancelled, timed out or failed.
    public func approve(_ request: PromptRequest) async -> Bool {
        let text = PinentryText(request)
        return await withPinentry(windowID: request.windowID, caller: request.caller.rawValue) {
            (session: PinentrySession) async throws(AssuanError) -> Bool? in
            try await session.describe(title: text.title, description: text.description, ok: text.ok)
            return try await session.confirm()
        } ?? false
    }

    /// Asks for access with three buttons: OK allows once, the "not OK" button (`SETNOTOK`) always allows, Cancel
    /// denies, as does anything that fails. OK is the one-time answer so that a hasty Enter grants the least.
    /// "Always allow" is followed, in the same pinentry, by a second `CONFIRM` for its reach: OK keeps it to the
    /// item (or its access group), "not OK" extends it to the whole keyring, Cancel takes the answer back (deny).
    public func consent(_ request: PromptRequest) async -> AccessAnswer {
        let text = PinentryText(request)
        return await withPinentry(windowID: request.windowID, caller: request.caller.rawValue) {
            (session: PinentrySession) async throws(AssuanError) -> AccessAnswer? in
            try await session.send("SETTITLE", text.title)
            try await session.send("SETDESC", text.description)
            try await session.send("SETOK", PinentryText.allowOnce)
            try await session.send("SETNOTOK", PinentryText.alwaysAllow)
            try await session.send("SETCANCEL", PinentryText.deny)
            let answer = try await session.choice()
            guard answer == .alwaysAllow, case .access(let access) = request.kind, access.keepsAnswer else {
                return answer
            }
            let scope = PinentryText(scopeOf: access)
            try await session.send("SETTITLE", scope.title)
            try await session.send("SETDESC", scope.description)
            try await session.send("SETOK", scope.ok)
            try await session.send("SETNOTOK", PinentryText.wholeKeyring)
            switch try await session.choice() {
            case .allowOnce: return .alwaysAllow
            case .alwaysAllow: return .alwaysAllowCollection
            case .alwaysAllowCollection, .deny: return .deny
            }
        } ?? .deny
    }

    // MARK: - PasswordPrompter

    /// Asks for an existing password (`GETPIN`), showing ``PasswordRequest/errorText`` with `SETERROR`.
    /// - Parameter request: What to ask.
    /// - Returns: The password, or `nil` when dismissed, cancelled, timed out or failed.
    public func password(for request: PasswordRequest) async -> SecretBytes? {
        let text = request.isPasswordChange ? PinentryText(changingFrom: request) : PinentryText(unlocking: request)
        return await withPinentry(windowID: request.windowID, caller: request.caller.rawValue) {
            (session: PinentrySession) async throws(AssuanError) -> SecretBytes? in
            try await session.describe(title: text.title, description: text.description, ok: text.ok)
            try await session.send("SETPROMPT", PinentryText.passwordPrompt)
            if let error = request.errorText { try await session.send("SETERROR", error) }
            return try await session.pin()?.secret
        }
    }

    /// Asks for a new password twice: with pinentry's own `SETREPEAT` when it supports it, else by asking twice
    /// and comparing (up to three rounds).
    /// - Parameter request: What to ask.
    /// - Returns: The confirmed password (possibly empty), or `nil` when dismissed, cancelled, timed out or failed.
    public func newPassword(for request: PasswordRequest) async -> SecretBytes? {
        let text = request.isPasswordChange ? PinentryText(changingTo: request) : PinentryText(creating: request)
        return await withPinentry(windowID: request.windowID, caller: request.caller.rawValue) {
            (session: PinentrySession) async throws(AssuanError) -> SecretBytes? in
            try await session.newPassword(text)
        }
    }
}

/// A step of a pinentry conversation, for tests.
enum PinentryEvent: Sendable, Equatable {
    /// The program runs with this process id.
    case launched(pid: Int32)
    /// We are about to send this command (the command word only).
    case sending(String)
}
