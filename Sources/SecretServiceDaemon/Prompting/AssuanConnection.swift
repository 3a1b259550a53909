// SPDX-License-Identifier: Apache-2.0
// A minimal Assuan client: one command at a time to a child process, collecting data, status and the verdict.

#if canImport(Glibc)
import Glibc
#endif
import SecretCrypto

/// What a successful command returned.
struct AssuanResponse: Sendable {
    /// The text after `OK`.
    var text: String
    /// The `D` lines, decoded and joined, in secure memory; `nil` when there were none.
    var data: SecretBytes?
    /// The `S` lines, in order.
    var statuses: [(keyword: String, arguments: String)]
}

/// A conversation with an Assuan server running as a child process (GnuPG's pinentry protocol).
///
/// Not `Sendable`: one task owns a connection from ``launch(executable:arguments:environment:grace:)`` to
/// ``close(_:)``. Cancelling that task makes the pending command throw ``AssuanError/cancelled`` and starts
/// terminating the child; the owner then awaits ``close(_:)`` to know it is gone. A connection dropped without
/// `close` terminates its child in the background.
final class AssuanConnection {
    private let channel: AssuanChannel
    private var lines: AsyncThrowingStream<AssuanLine, any Error>.AsyncIterator

    /// Assuan's limit on a line, without the LF.
    static let maximumLineLength = 1000

    /// The child's process id.
    var pid: pid_t { channel.child.pid }

    private init(channel: AssuanChannel) {
        self.channel = channel
        lines = channel.lines.makeAsyncIterator()
    }

    deinit { channel.requestClose(.terminate) }

    /// Starts the server and reads its greeting.
    /// - Parameters:
    ///   - executable: The program's path.
    ///   - arguments: Arguments after `argv[0]`.
    ///   - environment: The program's complete environment.
    ///   - grace: How long each step of stopping the child may take before the next, harsher one.
    /// - Throws: ``AssuanError``; the child is already reaped when this throws.
    static func launch(executable: String, arguments: [String], environment: [String: String],
                       grace: Duration) async throws(AssuanError) -> AssuanConnection
    {
        let child = try ChildProcess.spawn(executable: executable, arguments: arguments, environment: environment)
        let connection = AssuanConnection(channel: try AssuanChannel.open(child, grace: grace))
        do {
            _ = try await connection.readResponse()
        } catch {
            await connection.close(.terminate)
            throw error
        }
        return connection
    }

    /// Sends one command and waits for its `OK` or `ERR`.
    /// - Parameters:
    ///   - command: The command word, e.g. `GETPIN`.
    ///   - argument: Text after the command; `%`, CR, LF and other control characters are percent-escaped, and
    ///     overlong text is cut at a character boundary with an ellipsis.
    /// - Returns: The response.
    /// - Throws: ``AssuanError/server(code:description:)`` for `ERR`, or why the conversation broke.
    func transact(_ command: String, _ argument: String? = nil) async throws(AssuanError) -> AssuanResponse {
        if Task.isCancelled { throw .cancelled }
        try channel.send(Self.commandLine(command, argument))
        return try await readResponse()
    }

    /// Stops the child (see ``AssuanChannel/close(_:)``) and waits until it is reaped.
    func close(_ mode: AssuanChannel.CloseMode) async {
        await channel.close(mode)
    }

    // MARK: - Reading

    private func readResponse() async throws(AssuanError) -> AssuanResponse {
        var chunks: [SecretBytes] = []
        var statuses: [(keyword: String, arguments: String)] = []
        while true {
            let next: AssuanLine?
            do {
                next = try await lines.next()
            } catch let error as AssuanError {
                throw error
            } catch {
                throw .protocolViolation("\(error)")
            }
            // The stream also ends when our task is cancelled, which is not the server's doing.
            guard let line = next else { throw Task.isCancelled ? .cancelled : .disconnected }
            switch line {
            case .ok(let text):
                do {
                    return AssuanResponse(text: text, data: try Self.joined(chunks), statuses: statuses)
                } catch {
                    throw .noSecureMemory("\(error)")
                }
            case .err(let code, let description): throw .server(code: code, description: description)
            case .data(let bytes): chunks.append(bytes)
            case .status(let keyword, let arguments): statuses.append((keyword, arguments))
            case .inquire: try channel.send(Array("CAN\n".utf8))  // We offer nothing; the server then answers ERR.
            case .comment: continue
            }
        }
    }

    /// One buffer holding all chunks (Assuan splits long data over several `D` lines); the chunks wipe themselves.
    private static func joined(_ chunks: [SecretBytes]) throws(CryptoError) -> SecretBytes? {
        guard chunks.count > 1 else { return chunks.first }
        let joined = try SecretBytes(count: chunks.reduce(0) { $0 + $1.count })
        joined.withUnsafeMutableBytes { target in
            var offset = 0
            for chunk in chunks {
                chunk.withUnsafeBytes { source in
                    guard let base = source.baseAddress, let destination = target.baseAddress else { return }
                    (destination + offset).copyMemory(from: base, byteCount: source.count)
                }
                offset += chunk.count
            }
        }
        return joined
    }

    // MARK: - Writing

    /// `command argument\n` with the argument escaped and, if needed, shortened to fit in one Assuan line.
    static func commandLine(_ command: String, _ argument: String?) -> [UInt8] {
        var line = Array(command.utf8)
        if let argument {
            line.append(UInt8(ascii: " "))
            let escaped = argument.map(escaped)
            let budget = maximumLineLength - line.count
            if escaped.reduce(0, { $0 + $1.count }) <= budget {
                for piece in escaped { line += piece }
            } else {
                let ellipsis = Array("…".utf8)
                var used = ellipsis.count
                for piece in escaped {
                    guard used + piece.count <= budget else { break }
                    line += piece
                    used += piece.count
                }
                line += ellipsis
            }
        }
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// One character's UTF-8 bytes, with `%` and control characters (CR and LF would end the line early) as `%XX`.
    private static func escaped(_ character: Character) -> [UInt8] {
        var bytes: [UInt8] = []
        for byte in character.utf8 {
            if byte == UInt8(ascii: "%") || byte < 0x20 || byte == 0x7F {
                let hex = Array("0123456789ABCDEF".utf8)
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }
}
