// SPDX-License-Identifier: Apache-2.0
// add-*-password at a terminal asks for the password twice, as security(1) does, driven through a pseudo-terminal.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer add-*-password at a terminal")
struct PasswordPromptTests {
    /// Runs coffer on a pseudo-terminal (Python's pty module: Glibc's Swift module hides posix_openpt), waits for
    /// each prompt before typing its answer (echo goes off as the prompt appears, discarding earlier input), and
    /// prints the exit status. A prompt that never comes fails after 20 s without output.
    static let driver = """
        import json, os, pty, select, sys
        coffer, arguments, answers = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(coffer, [coffer] + arguments)
        seen = b""
        for prompt, answer in answers:
            while prompt.encode() not in seen:
                ready, _, _ = select.select([fd], [], [], 20)
                if not ready:
                    sys.exit("no prompt %r; saw %r" % (prompt, seen))
                seen += os.read(fd, 512)
            seen = seen.split(prompt.encode(), 1)[1]
            os.write(fd, answer.encode() + b"\\n")
        while True:
            try:
                if not os.read(fd, 512):
                    break
            except OSError:
                break
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
        """

    static func runAtTerminal(_ coffer: CofferCLI, _ arguments: [String], answers: [String]) async throws -> Int32? {
        let prompts = ["password data for new item: ", "retype password for new item: "]
        let pairs = zip(prompts, answers).map { [$0, $1] }
        let json = { (value: Any) in String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self) }
        let output = try await coffer.environment.run(
            "/usr/bin/python3", ["-c", driver, try CofferCLI.executable().path, try json(arguments), try json(pairs)])
        #expect(output.status == 0, "\(output.stderr)")
        return Int32(output.text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func asksTwiceAndStoresOnlyWhenBothMatch() async throws {
        try await Provider.cofferd.with { bus, _ in
            let coffer = CofferCLI(bus: bus)
            let matching = try await Self.runAtTerminal(coffer, ["add-generic-password", "-a", "ann", "-s", "typed"],
                                                        answers: ["same pw", "same pw"])
            #expect(matching == 0)
            #expect(try await coffer.run(["find-generic-password", "-s", "typed", "-w"]).text == "same pw\n")

            let differing = try await Self.runAtTerminal(
                coffer, ["add-internet-password", "-a", "ann", "-s", "typo.example"], answers: ["one", "two"])
            #expect(differing == 64)
            #expect(try await coffer.run(["find-internet-password", "-s", "typo.example"]).status == 44)
        }
    }
}
