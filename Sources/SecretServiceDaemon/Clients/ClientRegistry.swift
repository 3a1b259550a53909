// SPDX-License-Identifier: Apache-2.0
// Owns every session and prompt, each bound to the unique bus name of the client that made it.

import DBusWire
import SecretServiceProtocol

/// Sessions and prompts, keyed by id and owned by one client each. A client that leaves the bus loses them all.
actor ClientRegistry {
    private var sessions: [String: SecretSession] = [:]
    /// A logical clock of session uses, for evicting the least recently used one.
    private var lastUse: [String: UInt64] = [:]
    private var useCounter: UInt64 = 0
    private var prompts: [String: PromptState] = [:]
    /// Prompts that completed recently, kept so a late `Dismiss()` (the race every client must tolerate) is
    /// answered as a no-op instead of an error. Bounded; oldest forgotten first.
    private var finished: [String: BusName] = [:]
    private var finishedOrder: [String] = []
    private static let finishedMemory = 1024
    private var nextSession: UInt64 = 1
    private var nextPrompt: UInt64 = 1
    private let limits: ClientLimits
    /// The last prompt that could not be shown at all.
    private(set) var lastFailedPrompt: FailedPrompt?
    /// Registered `coffer prompt-agent`s, oldest first; a client has at most one.
    var promptAgents: [PromptAgent] = []

    init(limits: ClientLimits) {
        self.limits = limits
    }

    // MARK: - Sessions

    /// Registers a session for `owner`. A client already at the cap loses its least recently used session: some
    /// clients (python secretstorage) open a session per item object and never close them, so refusing would break
    /// long-running programs, while a client looping on `OpenSession` still cannot hold more than the cap.
    /// - Throws: `limitsExceeded` when all clients together hold the daemon-wide cap and this one is under its own
    ///   (evicting another client's session would let one client break others).
    func openSession(owner: BusName, algorithm: SecretSession.Algorithm) throws(SecretServiceError) -> SecretSession {
        let owned = sessions.values.filter { $0.owner == owner }
        if owned.count >= limits.maximumSessionsPerClient,
           let oldest = owned.min(by: { (lastUse[$0.id] ?? 0) < (lastUse[$1.id] ?? 0) }) {
            sessions[oldest.id] = nil
            lastUse[oldest.id] = nil
        }
        guard sessions.count < limits.maximumSessions else {
            throw .limitsExceeded("too many open sessions in the daemon; close some")
        }
        let session = SecretSession(id: String(nextSession), owner: owner, algorithm: algorithm)
        nextSession += 1
        sessions[session.id] = session
        touch(session.id)
        return session
    }

    /// The session `id` if `caller` owns it; counts as a use.
    func session(_ id: String, ownedBy caller: BusName) -> SecretSession? {
        guard let session = sessions[id], session.owner == caller else { return nil }
        touch(id)
        return session
    }

    private func touch(_ id: String) {
        useCounter += 1
        lastUse[id] = useCounter
    }

    /// Closes a session the caller owns; `false` when there is no such session of the caller's.
    func closeSession(_ id: String, ownedBy caller: BusName) -> Bool {
        guard sessions[id]?.owner == caller else { return false }
        sessions[id] = nil
        lastUse[id] = nil
        return true
    }

    /// Every open session's id, sorted.
    func sessionIDs() -> [String] { sessions.keys.sorted(by: Self.numericOrder) }

    // MARK: - Prompts

    /// Registers a prompt for `owner`.
    /// - Throws: `limitsExceeded` past the per-client or the daemon-wide cap.
    func createPrompt(owner: BusName, work: PromptWork) throws(SecretServiceError) -> String {
        guard prompts.values.count(where: { $0.owner == owner && $0.phase != .completed })
            < limits.maximumPromptsPerClient
        else {
            throw .limitsExceeded("too many pending prompts for this client")
        }
        guard prompts.count < limits.maximumPrompts else {
            throw .limitsExceeded("too many pending prompts in the daemon")
        }
        let id = String(nextPrompt)
        nextPrompt += 1
        prompts[id] = PromptState(id: id, owner: owner, work: work)
        return id
    }

    /// Whether `id` is a live prompt of `caller`'s.
    func promptExists(_ id: String, ownedBy caller: BusName) -> Bool {
        guard let prompt = prompts[id], prompt.owner == caller else { return false }
        return prompt.phase != .completed
    }

    /// Moves a waiting prompt to running and hands out its work; `nil` if it is already running or finished.
    func begin(_ id: String, caller: BusName) -> PromptWork? {
        guard var prompt = prompts[id], prompt.owner == caller, prompt.phase == .waiting else { return nil }
        prompt.phase = .running
        prompts[id] = prompt
        return prompt.work
    }

    /// Suspends until the running prompt `id` is dismissed (returns at once if it is already finished).
    func waitForDismissal(of id: String) async {
        await withCheckedContinuation { continuation in
            guard prompts[id]?.phase == .running, prompts[id]?.dismissal == nil else {
                continuation.resume()
                return
            }
            prompts[id]?.dismissal = continuation
        }
    }

    /// Records a prompt's end. Returns the completion to announce, or `nil` if it had already ended, so
    /// `Completed` goes out exactly once whatever the order of finishing, `Dismiss` and disconnect.
    func finish(_ id: String, result: DBusValue?) -> (owner: BusName, completion: PromptCompletion)? {
        guard var prompt = prompts[id], prompt.phase != .completed else { return nil }
        prompt.phase = .completed
        prompt.dismissal?.resume()
        prompt.dismissal = nil
        // A finished prompt is gone; a late Dismiss() finds nothing and is answered as a no-op by the adaptor.
        prompts[id] = nil
        remember(finished: id, owner: prompt.owner)
        let completion = PromptCompletion(dismissed: result == nil, result: result ?? prompt.work.emptyResult)
        return (prompt.owner, completion)
    }

    /// Remembers a prompt that could not be shown, replacing the one before.
    func recordFailedPrompt(_ failure: FailedPrompt) {
        lastFailedPrompt = failure
    }

    /// Ends every live prompt as dismissed (the daemon is shutting down); returns what to announce for each.
    func dismissAll() -> [(id: String, owner: BusName, completion: PromptCompletion)] {
        prompts.keys.sorted(by: Self.numericOrder).compactMap { id in
            finish(id, result: nil).map { (id, $0.owner, $0.completion) }
        }
    }

    /// Whether `id` was a prompt of `caller`'s that has completed.
    func wasFinished(_ id: String, ownedBy caller: BusName) -> Bool { finished[id] == caller }

    private func remember(finished id: String, owner: BusName) {
        finished[id] = owner
        finishedOrder.append(id)
        if finishedOrder.count > Self.finishedMemory {
            finished[finishedOrder.removeFirst()] = nil
        }
    }

    /// The owner of prompt `id`, if it exists.
    func promptOwner(_ id: String) -> BusName? { prompts[id]?.owner }

    /// Every live prompt's id, sorted.
    func promptIDs() -> [String] { prompts.keys.sorted(by: Self.numericOrder) }

    // MARK: - Clients leaving

    /// Drops everything `name` owned: its sessions close, its prompts are dismissed (their runners stop).
    /// Returns the prompt ids that were still live, whose `Completed` is not sent (nobody is left to receive it).
    /// Called when the bus announces the departure, and again when a call that registered something for `name`
    /// finds, after its reply, that `name` had already left (`DaemonContext.registered(_:for:)` says why).
    @discardableResult
    func clientVanished(_ name: BusName) -> [String] {
        sessions = sessions.filter { $0.value.owner != name }
        promptAgents.removeAll { $0.owner == name }
        lastUse = lastUse.filter { sessions[$0.key] != nil }
        finished = finished.filter { $0.value != name }
        finishedOrder.removeAll { finished[$0] == nil }
        var dropped: [String] = []
        for (id, prompt) in prompts where prompt.owner == name {
            prompt.dismissal?.resume()
            prompts[id] = nil
            dropped.append(id)
        }
        return dropped.sorted(by: Self.numericOrder)
    }

    static func numericOrder(_ a: String, _ b: String) -> Bool {
        a.count != b.count ? a.count < b.count : a < b
    }
}
