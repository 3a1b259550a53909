// SPDX-License-Identifier: Apache-2.0
// PinentryPrompter against Tests/Fixtures/pinentry-script: answers, retries, repeats, failures, timeout, cancel.

import DBusWire
import Foundation
import Glibc
import SecretCrypto
@testable import SecretServiceDaemon
import Testing

/// One scripted pinentry setup: a scratch directory for the script's state and command log.
private struct ScriptedPinentry {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pinentry-script").path

    let directory: URL
    var configuration: PinentryPrompter.Configuration

    /// - Parameter answers: What successive GETPINs answer (see the script's header).
    init(_ answers: [String], refuseRepeat: Bool = false, timeout: Duration = .seconds(60)) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-pinentry-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var environment = [
            "PATH": "/usr/bin:/bin",
            "COFFER_TEST_PINENTRY_PASSWORDS": answers.joined(separator: ","),
            "COFFER_TEST_PINENTRY_STATE": directory.appendingPathComponent("state").path,
            "COFFER_TEST_PINENTRY_LOG": directory.appendingPathComponent("log").path,
        ]
        if refuseRepeat { environment["COFFER_TEST_PINENTRY_NO_REPEAT"] = "1" }
        configuration = PinentryPrompter.Configuration(
            program: Self.script, environment: environment, timeout: timeout)
        configuration.ttyName = nil  // Independent of whether the test runner sits on a terminal.
    }

    var prompter: PinentryPrompter { PinentryPrompter(configuration: configuration) }

    /// The commands the script received, in order.
    var log: [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    func count(_ command: String) -> Int { log.filter { $0 == command || $0.hasPrefix(command + " ") }.count }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

private func request(attempt: Int = 1, errorText: String? = nil) -> PasswordRequest {
    PasswordRequest(collectionLabel: "Login", windowID: "", caller: BusName(unchecked: ":1.42"), attempt: attempt,
                    errorText: errorText)
}

private func text(_ secret: SecretBytes?) -> String? {
    secret.map { String(decoding: $0.copyBytes(), as: UTF8.self) }
}

/// Whether no process (not even a zombie) has this id any more.
private func isGone(_ pid: Int32) -> Bool { kill(pid, 0) == -1 && errno == ESRCH }

@Suite("PinentryPrompter")
struct PinentryPrompterTests {
    @Test("the right answer comes back, with the dialog texts sent first and BYE last")
    func password() async throws {
        let pinentry = try ScriptedPinentry(["hunter2"])
        defer { pinentry.remove() }
        #expect(text(await pinentry.prompter.password(for: request())) == "hunter2")
        let log = pinentry.log
        #expect(log.first == "SETTITLE Unlock Keyring")
        #expect(log.contains(
            "SETDESC The D-Bus client :1.42 wants access to the keyring “Login”.%0A%0AEnter its password to unlock it."))
        #expect(log.contains("SETPROMPT Password:"))
        #expect(log.suffix(2) == ["GETPIN", "BYE"])
        #expect(pinentry.count("SETERROR") == 0)
    }

    @Test("a retry shows the error text with SETERROR")
    func retry() async throws {
        let pinentry = try ScriptedPinentry(["second-try"])
        defer { pinentry.remove() }
        let answer = await pinentry.prompter.password(for: request(attempt: 2, errorText: "Wrong password, try again"))
        #expect(text(answer) == "second-try")
        #expect(pinentry.log.contains("SETERROR Wrong password, try again"))
    }

    @Test("percent-escaped data lines decode exactly")
    func percentEscapes() async throws {
        let tricky = "p%41ss%25w%rd%"
        let pinentry = try ScriptedPinentry(["", tricky])  // The script cannot express a trailing empty entry.
        defer { pinentry.remove() }
        #expect(text(await pinentry.prompter.password(for: request())) == "", "OK without D is an empty password")
        #expect(text(await pinentry.prompter.password(for: request())) == tricky)
    }

    @Test("a new password is confirmed by pinentry itself with SETREPEAT")
    func newPasswordWithRepeat() async throws {
        let pinentry = try ScriptedPinentry(["s3cret"])
        defer { pinentry.remove() }
        #expect(text(await pinentry.prompter.newPassword(for: request())) == "s3cret")
        #expect(pinentry.log.contains("SETREPEAT Confirm:"))
        #expect(pinentry.log.contains("SETREPEATERROR Passwords do not match"))
        #expect(pinentry.count("GETPIN") == 1)
    }

    @Test("without SETREPEAT the prompter asks twice, and again after a mismatch")
    func newPasswordFallback() async throws {
        let pinentry = try ScriptedPinentry(["one", "two", "same", "same"], refuseRepeat: true)
        defer { pinentry.remove() }
        #expect(text(await pinentry.prompter.newPassword(for: request())) == "same")
        #expect(pinentry.count("GETPIN") == 4)
        #expect(pinentry.log.contains("SETPROMPT Confirm:"))
        #expect(pinentry.log.contains("SETERROR Passwords do not match"))
    }

    @Test("three mismatching rounds dismiss")
    func newPasswordMismatch() async throws {
        let pinentry = try ScriptedPinentry(["a", "b", "c", "d", "e", "f"], refuseRepeat: true)
        defer { pinentry.remove() }
        #expect(await pinentry.prompter.newPassword(for: request()) == nil)
        #expect(pinentry.count("GETPIN") == 6)
    }

    @Test("CANCEL dismisses, and the pinentry is still told BYE")
    func cancel() async throws {
        let pinentry = try ScriptedPinentry(["CANCEL"])
        defer { pinentry.remove() }
        #expect(await pinentry.prompter.password(for: request()) == nil)
        #expect(pinentry.log.last == "BYE")
    }

    @Test("a pinentry that dies dismisses at once, not after the timeout", .timeLimit(.minutes(3)))
    func dies() async throws {
        // A timeout far beyond anything a loaded machine (or a sanitizer) adds: ending well before it means the
        // death was noticed, not waited out.
        let pinentry = try ScriptedPinentry(["DIE"], timeout: .seconds(3600))
        defer { pinentry.remove() }
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await pinentry.prompter.password(for: request()) == nil)
        #expect(clock.now - start < .seconds(600))
    }

    @Test("a pinentry that hangs dismisses after the timeout and is reaped")
    func hangs() async throws {
        var pinentry = try ScriptedPinentry(["HANG"], timeout: .milliseconds(300))
        defer { pinentry.remove() }
        let (events, sink) = AsyncStream.makeStream(of: PinentryEvent.self)
        pinentry.configuration.observer = { sink.yield($0) }
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await pinentry.prompter.password(for: request()) == nil)
        #expect(clock.now - start >= .milliseconds(300))
        sink.finish()
        let pids = await events.reduce(into: [Int32]()) { if case .launched(let pid) = $1 { $0.append(pid) } }
        #expect(pids.count == 1)
        #expect(pids.allSatisfy(isGone))
    }

    @Test("a pinentry that ignores SIGTERM gets SIGKILL after the grace period")
    func stubborn() async throws {
        var pinentry = try ScriptedPinentry(["STUBBORN"], timeout: .milliseconds(200))
        defer { pinentry.remove() }
        pinentry.configuration.terminationGracePeriod = .milliseconds(100)
        let (events, sink) = AsyncStream.makeStream(of: PinentryEvent.self)
        pinentry.configuration.observer = { sink.yield($0) }
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await pinentry.prompter.password(for: request()) == nil)
        #expect(clock.now - start >= .milliseconds(300), "timeout, then the grace period after SIGTERM")
        sink.finish()
        let pids = await events.reduce(into: [Int32]()) { if case .launched(let pid) = $1 { $0.append(pid) } }
        #expect(pids.count == 1 && pids.allSatisfy(isGone))
    }

    @Test("cancelling the task kills the pinentry before the call returns")
    func cancellation() async throws {
        var pinentry = try ScriptedPinentry(["HANG"], timeout: .seconds(60))
        defer { pinentry.remove() }
        let (events, sink) = AsyncStream.makeStream(of: PinentryEvent.self)
        pinentry.configuration.observer = { sink.yield($0) }
        let prompter = pinentry.prompter
        let task = Task { await prompter.password(for: request()) }
        var pid: Int32?
        for await event in events {
            if case .launched(let launched) = event { pid = launched }
            if event == .sending("GETPIN") { break }
        }
        let child = try #require(pid)
        #expect(!isGone(child))
        task.cancel()
        #expect(await task.value == nil)
        #expect(isGone(child))
    }

    @Test("approval uses CONFIRM")
    func approve() async throws {
        let pinentry = try ScriptedPinentry([])
        defer { pinentry.remove() }
        let prompt = PromptRequest(kind: .unlock(collectionLabel: "Login"), windowID: "", caller: BusName(unchecked: ":1.7"))
        #expect(await pinentry.prompter.approve(prompt))
        #expect(pinentry.log.contains("CONFIRM"))
    }

    @Test("terminal, locale and window options are sent when known")
    func options() async throws {
        var pinentry = try ScriptedPinentry(["x"])
        defer { pinentry.remove() }
        pinentry.configuration.ttyName = "/dev/pts/99"
        pinentry.configuration.environment.merge(["TERM": "xterm-256color", "LANG": "de_DE.UTF-8"]) { $1 }
        var withWindow = request()
        withWindow.windowID = "12345"
        _ = await pinentry.prompter.password(for: withWindow)
        let options = pinentry.log.filter { $0.hasPrefix("OPTION ") }
        #expect(options == ["OPTION ttyname=/dev/pts/99", "OPTION ttytype=xterm-256color",
                            "OPTION lc-ctype=de_DE.UTF-8", "OPTION lc-messages=de_DE.UTF-8",
                            "OPTION parent-wid=12345"])
    }

    @Test("a label cannot push the requester out of the dialog or imitate it", arguments: [false, true])
    func hostileLabel(creating: Bool) async throws {
        let pinentry = try ScriptedPinentry(["x"])
        defer { pinentry.remove() }
        var hostile = request()
        hostile.collectionLabel = "Login\n\nRequested by the D-Bus client :1.99 (org.gnome.Settings).\n\u{202E}"
            + String(repeating: "x", count: 2000)
        if creating { _ = await pinentry.prompter.newPassword(for: hostile) }
        else { _ = await pinentry.prompter.password(for: hostile) }
        let line = try #require(pinentry.log.first { $0.hasPrefix("SETDESC ") })
        #expect(line.utf8.count < AssuanConnection.maximumLineLength, "nothing was cut")
        let description = String(line.dropFirst("SETDESC ".count)).replacingOccurrences(of: "%0A", with: "\n")
            .replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%25", with: "%")
        let paragraphs = description.components(separatedBy: "\n\n")
        #expect(paragraphs.count == 2, "only our own line breaks: \(paragraphs)")
        let first = try #require(paragraphs.first)
        #expect(first.hasPrefix(creating ? "The D-Bus client :1.42 wants to create a new keyring called “Login "
                                         : "The D-Bus client :1.42 wants access to the keyring “Login "))
        #expect(first.hasSuffix("…”."), "the label is cut short on its own")
        #expect(!description.contains("\r") && !description.unicodeScalars.contains("\u{202E}"))
        #expect(paragraphs.last == (creating ? "Choose the password you want to use for it."
                                             : "Enter its password to unlock it."))
    }

    @Test("a missing program dismisses")
    func missingProgram() async {
        var configuration = PinentryPrompter.Configuration(program: "coffer-no-such-pinentry", environment: ["PATH": "/nonexistent"])
        configuration.ttyName = nil
        #expect(await PinentryPrompter(configuration: configuration).password(for: request()) == nil)
    }
}

@Suite("Assuan lines")
struct AssuanLineTests {
    private func parse(_ line: String) -> AssuanLine {
        Array(line.utf8).withUnsafeBytes { try! AssuanLine(parsing: $0) }
    }

    @Test("D lines decode %XX into secure memory and keep stray percent signs")
    func data() {
        guard case .data(let bytes) = parse("D a%25b%0Ac%4") else { Issue.record("not data"); return }
        #expect(bytes.copyBytes() == Array("a%b\nc%4".utf8))
    }

    @Test("OK, ERR, S, INQUIRE and comments are told apart")
    func kinds() {
        guard case .ok("Pleased to meet you") = parse("OK Pleased to meet you\r") else { Issue.record("ok"); return }
        guard case .err(83886179, "Operation cancelled <Pinentry>") = parse("ERR 83886179 Operation cancelled <Pinentry>")
        else { Issue.record("err"); return }
        #expect(AssuanError.server(code: 83886179, description: "").isUserDismissal)
        #expect(!AssuanError.server(code: 83886181, description: "").isUserDismissal)
        guard case .status("PIN_REPEATED", "") = parse("S PIN_REPEATED") else { Issue.record("status"); return }
        guard case .inquire("QUALITY", "x") = parse("INQUIRE QUALITY x") else { Issue.record("inquire"); return }
        guard case .comment = parse("# hello") else { Issue.record("comment"); return }
    }

    @Test("command arguments escape %, CR and LF, and long ones are cut to one line")
    func commands() {
        #expect(AssuanConnection.commandLine("SETDESC", "50%\r\nx") == Array("SETDESC 50%25%0D%0Ax\n".utf8))
        #expect(AssuanConnection.commandLine("BYE", nil) == Array("BYE\n".utf8))
        let long = AssuanConnection.commandLine("SETDESC", String(repeating: "é", count: 2000))
        #expect(long.count <= AssuanConnection.maximumLineLength + 1)
        #expect(String(decoding: long, as: UTF8.self).hasSuffix("é…\n"))
    }
}

@Suite("Prompt labels")
struct PromptLabelTests {
    @Test("line breaks and other controls become spaces; C0, DEL and C1 included")
    func controls() {
        #expect(PromptLabel.displayed("a\nb\rc\td\u{7F}e\u{85}f\u{9B}g\u{2028}h\u{2029}i\u{0}j")
                == "a b c d e f g h i j")
    }

    @Test("bidirectional controls and other format characters are removed")
    func bidirectional() {
        let scalars: [Unicode.Scalar] = ["\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}",
                                         "\u{2067}", "\u{2068}", "\u{2069}", "\u{200E}", "\u{200F}", "\u{061C}",
                                         "\u{200B}", "\u{FEFF}"]
        let label = "Work" + String(String.UnicodeScalarView(scalars)) + "gpj.exe"
        #expect(PromptLabel.displayed(label) == "Workgpj.exe")
    }

    @Test("long labels are cut with an ellipsis, counted in characters and in scalars")
    func length() {
        #expect(PromptLabel.displayed(String(repeating: "é", count: 2000))
                == String(repeating: "é", count: PromptLabel.maximumCharacters) + "…")
        let heavy = "a" + String(repeating: "\u{301}", count: 1000) + "b"
        #expect(PromptLabel.displayed(heavy) == "…")
        #expect(PromptLabel.displayed("Login") == "Login")
        #expect(PromptLabel.displayed(String(repeating: "x", count: PromptLabel.maximumCharacters))
                == String(repeating: "x", count: PromptLabel.maximumCharacters))
    }
}

@Suite("ScriptedPasswordPrompter")
struct ScriptedPasswordPrompterTests {
    @Test("answers in order, nil and exhaustion dismiss, questions are recorded")
    func queue() async {
        let prompter = ScriptedPasswordPrompter(answers: ["a", nil], approvals: [true])
        #expect(text(await prompter.password(for: request())) == "a")
        #expect(await prompter.newPassword(for: request(attempt: 2)) == nil)
        #expect(await prompter.password(for: request()) == nil)
        let prompt = PromptRequest(kind: .unlock(collectionLabel: "L"), windowID: "", caller: BusName(unchecked: ":1.1"))
        #expect(await prompter.approve(prompt))
        #expect(await !prompter.approve(prompt))
        #expect(prompter.questions.count == 5)
        #expect(prompter.questions[1] == .newPassword(request(attempt: 2)))
    }
}
