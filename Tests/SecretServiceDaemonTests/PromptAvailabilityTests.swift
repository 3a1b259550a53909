// SPDX-License-Identifier: Apache-2.0
// Whether a pinentry could be seen by anyone: a display, a terminal, and the program itself.

import Foundation
@testable import SecretServiceDaemon
import Testing

@Suite("Prompt availability")
struct PromptAvailabilityTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pinentry-script").path

    func reason(program: String = script, environment: [String: String], tty: String? = nil) async
        -> PromptUnavailability? {
        var configuration = PinentryPrompter.Configuration(program: program, environment: environment)
        configuration.ttyName = tty  // independent of whether the test runner sits on a terminal
        return await PinentryPrompter(configuration: configuration).unavailability()
    }

    @Test("no display and no terminal: the documented reason; an empty DISPLAY counts as none")
    func nowhere() async {
        #expect(await reason(environment: ["PATH": "/usr/bin"]) == .noDisplayOrTerminal)
        #expect(await reason(environment: ["DISPLAY": ""]) == .noDisplayOrTerminal)
    }

    @Test("an X11 or Wayland display, or a terminal, is enough")
    func somewhere() async {
        #expect(await reason(environment: ["DISPLAY": ":0"]) == nil)
        #expect(await reason(environment: ["WAYLAND_DISPLAY": "wayland-0"]) == nil)
        #expect(await reason(environment: [:], tty: "/dev/pts/3") == nil)
    }

    @Test("a missing pinentry program is named")
    func missingProgram() async {
        let environment = ["DISPLAY": ":0", "PATH": "/usr/bin"]
        #expect(await reason(program: "pinentry-that-does-not-exist", environment: environment)
            == .other("cannot ask for the password: the pinentry program 'pinentry-that-does-not-exist' is not installed"))
    }

    @Test("a prompter that asks nobody is always available")
    func fixed() async {
        #expect(await FixedPrompter.autoDismiss.unavailability() == nil)
    }
}
