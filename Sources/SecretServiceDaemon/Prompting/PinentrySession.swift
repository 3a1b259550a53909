// SPDX-License-Identifier: Apache-2.0
// The pinentry commands of one prompt: options, texts, GETPIN, CONFIRM and the new-password dialogue.

import SecretCrypto

/// One conversation with a running pinentry, in pinentry's vocabulary.
struct PinentrySession {
    let connection: AssuanConnection
    let observer: (@Sendable (PinentryEvent) -> Void)?

    /// Sends one command.
    /// - Throws: ``AssuanError``, including `.server` for `ERR`.
    @discardableResult
    func send(_ command: String, _ argument: String? = nil) async throws(AssuanError) -> AssuanResponse {
        observer?(.sending(command))
        return try await connection.transact(command, argument)
    }

    // MARK: - Setup

    /// The terminal and locale options a tty or curses pinentry needs (the ones gpg-agent sends), and the
    /// client's X11 window as the dialog's parent.
    func setOptions(_ configuration: PinentryPrompter.Configuration, windowID: String) async throws(AssuanError) {
        let environment = configuration.environment
        func variable(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        if let tty = configuration.ttyName {
            try await option("ttyname=\(tty)")
            if let term = variable("TERM") { try await option("ttytype=\(term)") }
            if let ctype = variable("LC_ALL", "LC_CTYPE", "LANG") { try await option("lc-ctype=\(ctype)") }
            if let messages = variable("LC_ALL", "LC_MESSAGES", "LANG") { try await option("lc-messages=\(messages)") }
        }
        // Only X11 ids are numeric; other window handles mean nothing to pinentry.
        if !windowID.isEmpty, UInt64(windowID) != nil { try await option("parent-wid=\(windowID)") }
    }

    /// Sends `OPTION text`. A refusal is not fatal: older pinentries answer ERR to options they do not know.
    func option(_ text: String) async throws(AssuanError) {
        try await refusalIgnored { () async throws(AssuanError) in try await send("OPTION", text) }
    }

    /// Sets the window title, the description and the buttons.
    func describe(title: String, description: String, ok: String) async throws(AssuanError) {
        try await send("SETTITLE", title)
        try await send("SETDESC", description)
        try await send("SETOK", ok)
        try await send("SETCANCEL", PinentryText.cancel)
    }

    // MARK: - Questions

    /// `CONFIRM`: `true` for OK, `false` when the user declined or cancelled.
    func confirm() async throws(AssuanError) -> Bool {
        do {
            try await send("CONFIRM")
            return true
        } catch {
            if error.isUserDismissal { return false }
            throw error
        }
    }

    /// `CONFIRM` with three buttons: OK, "not OK" (`GPG_ERR_NOT_CONFIRMED`), or cancel and everything else.
    func choice() async throws(AssuanError) -> AccessAnswer {
        do {
            try await send("CONFIRM")
            return .allowOnce
        } catch {
            guard error.isUserDismissal else { throw error }
            if case .server(let code, _) = error, code & 0xFFFF == AssuanError.GPGErrorCode.notConfirmed { return .alwaysAllow }
            return .deny
        }
    }

    /// `GETPIN`: the password, and whether pinentry itself had it typed twice (`S PIN_REPEATED`).
    /// - Returns: `nil` when the user cancelled; an empty buffer when the user entered nothing.
    func pin() async throws(AssuanError) -> (secret: SecretBytes, repeated: Bool)? {
        let response: AssuanResponse
        do {
            response = try await send("GETPIN")
        } catch {
            if error.isUserDismissal { return nil }
            throw error
        }
        let repeated = response.statuses.contains { $0.keyword == "PIN_REPEATED" }
        if let data = response.data { return (data, repeated) }
        do {
            return (try SecretBytes(count: 0), repeated)
        } catch {
            throw .noSecureMemory("\(error)")
        }
    }

    /// Asks for a new password and its confirmation.
    ///
    /// pinentry's `SETREPEAT` makes it ask twice and compare; it reports that with `S PIN_REPEATED`. A pinentry
    /// that refuses `SETREPEAT`, or accepts it without reporting, is asked a second time by us and the answers
    /// compared in constant time; after three mismatching rounds the prompt ends as dismissed.
    func newPassword(_ text: PinentryText) async throws(AssuanError) -> SecretBytes? {
        try await describe(title: text.title, description: text.description, ok: text.ok)
        try await send("SETPROMPT", PinentryText.passwordPrompt)
        var pinentryRepeats = true
        do {
            try await send("SETREPEAT", PinentryText.confirmPrompt)
        } catch {
            guard case .server = error else { throw error }
            pinentryRepeats = false
        }
        if pinentryRepeats {
            try await refusalIgnored { () async throws(AssuanError) in
                try await send("SETREPEATERROR", PinentryText.mismatch)
            }
        }
        for round in 1...3 {
            if round > 1 {
                try await send("SETDESC", text.description)
                try await send("SETPROMPT", PinentryText.passwordPrompt)
                try await send("SETERROR", PinentryText.mismatch)
            }
            guard let (first, repeated) = try await pin() else { return nil }
            if repeated { return first }
            try await send("SETDESC", text.confirmDescription)
            try await send("SETPROMPT", PinentryText.confirmPrompt)
            guard let (second, _) = try await pin() else { return nil }
            if first.constantTimeEquals(second) { return first }
        }
        return nil
    }

    /// Runs `body`, treating an `ERR` answer as success.
    private func refusalIgnored(_ body: () async throws(AssuanError) -> Void) async throws(AssuanError) {
        do {
            try await body()
        } catch {
            guard case .server = error else { throw error }
        }
    }
}
