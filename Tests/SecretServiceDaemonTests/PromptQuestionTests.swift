// SPDX-License-Identifier: Apache-2.0
// What a client is told when a prompt cannot be shown: the way out that fits the question.

@testable import SecretServiceDaemon
import Testing

@Suite("Prompt questions")
struct PromptQuestionTests {
    static let questions: [PromptQuestion] = [
        .unlock(collection: nil), .unlock(collection: "work"), .create(label: "Work"), .change(collection: "work"),
        .consent,
    ]

    @Test("with no display or terminal each question names its own command; other reasons pass unchanged")
    func reasons() {
        let texts = Self.questions.map { $0.reason(.noDisplayOrTerminal) }
        #expect(texts == [
            "cannot ask for the password: no display or terminal; run `coffer unlock-keychain` or `coffer prompt-agent`",
            "cannot ask for the password: no display or terminal; run `coffer unlock-keychain work` or "
                + "`coffer prompt-agent`",
            "cannot ask for the new keychain's password: no display or terminal; run `coffer create-keychain Work` or "
                + "`coffer prompt-agent`",
            "cannot ask for the passwords: no display or terminal; run `coffer set-keychain-password work` or "
                + "`coffer prompt-agent`",
            "cannot ask whether to allow this application: no display or terminal; run `coffer prompt-agent` in a "
                + "terminal, then try again",
        ])
        for question in Self.questions {
            #expect(question.reason(.other("the pinentry program 'x' is not installed"))
                == "the pinentry program 'x' is not installed")
        }
    }

    @Test("a name goes into the command as one shell word")
    func shellWords() {
        #expect(PromptQuestion.shellWord("login") == "login")
        #expect(PromptQuestion.shellWord("a.b-c_d") == "a.b-c_d")
        #expect(PromptQuestion.shellWord("My Keys") == "'My Keys'")
        #expect(PromptQuestion.shellWord("Tom's") == "'Tom'\\''s'")
        #expect(PromptQuestion.shellWord("$(rm -rf ~)") == "'$(rm -rf ~)'")
        #expect(PromptQuestion.shellWord("") == "''")
    }
}
