// SPDX-License-Identifier: Apache-2.0
// The connection's loop thread, for callers that run their work there.

import DBusTransport

extension SecretService {
    /// The connection's loop thread as a task executor: work that prefers it (`withTaskExecutorPreference`) sends
    /// its calls and resumes on their replies on the thread that reads the socket, without waking another thread.
    public var loopExecutor: any TaskExecutor { connection.taskExecutor }

    /// Whether the caller runs on the connection's loop thread, where blocking to wait for this client's own
    /// calls could never end.
    public var isOnLoopThread: Bool { connection.taskExecutor.isCurrentThread }
}
