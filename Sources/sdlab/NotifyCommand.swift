import ArgumentParser
import DBusKit
import DeviceContract
import DeviceProcesses
import SharedDevice

struct NotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Post, wait for, read and set Darwin-style notifications (like notifyutil).",
        discussion: """
            A post is a `dev.sdlab.Notify1.Posted(name)` signal from /dev/sdlab/Notify: any process \
            may post any name, and a post carries no payload. Each name also has a 64-bit state, \
            kept by the hub while some process holds a registration for the name (`wait` holds \
            one). A name is 1 to 511 bytes without NUL; a name starting `self.` is private to the \
            process that uses it, here this sdlab, as with notifyutil.
            """,
        subcommands: [Post.self, Wait.self, Get.self, Set.self]
    )

    struct Post: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Post a notification (notifyutil -p).")
        @OptionGroup var busOptions: BusOptions
        @Argument(help: "The notification name.") var name: String

        func run() async throws {
            guard try NotifyCommand.isShared(name) else { return }
            let connection = try await busOptions.connect()
            do {
                try connection.post(name)
            } catch {
                throw failure("cannot post \"\(name)\": \(error)", code: ExitCodes.usage)
            }
            await connection.flush()
            await connection.close()
        }
    }

    struct Wait: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wait for a post of a notification (notifyutil -w).",
            discussion: """
                Exits 0 when the post arrives, 1 after the timeout. Says on stderr when it listens. \
                While it waits it holds a registration for the name, so the hub keeps the name's state.
                """)
        @OptionGroup var busOptions: BusOptions
        @Argument(help: "The notification name.") var name: String
        @Option(help: "How long to wait, e.g. 500ms, 30s, 2m.") var timeout: Duration = .seconds(30)

        func run() async throws {
            guard try NotifyCommand.isShared(name) else {
                // No other process's post reaches it, and this one makes none.
                note("waiting for \(name)")
                try? await Task.sleep(for: timeout)
                throw failure("no post of \(name) within \(timeout)", code: ExitCodes.failed)
            }
            let connection = try await busOptions.connect()
            let posts: AsyncStream<Message>
            do {
                posts = try await connection.signals(matching: DeviceBus.posts(of: name))
            } catch {
                await connection.close()
                throw failure("cannot wait for \"\(name)\": \(error)", code: ExitCodes.usage)
            }
            // Held until this process leaves the bus. A hub that does not answer delays the wait
            // a little and holds nothing: the posts need only the bus.
            _ = try? await connection.callHub(NotifyMethod.register, [.string(name)], timeout: .seconds(5))
            note("waiting for \(name)")
            let arrived = await firstPost(posts, within: timeout)
            await connection.close()
            guard arrived else { throw failure("no post of \(name) within \(timeout)", code: ExitCodes.failed) }
            emitLine(name)
        }

        private func firstPost(_ posts: AsyncStream<Message>, within timeout: Duration) async -> Bool {
            await firstOf([
                { [name] in
                    for await post in posts where DeviceBus.isPost(post, of: name) { return true }
                    return false
                },
                {
                    try? await Task.sleep(for: timeout)
                    return false
                },
            ])
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a notification's state (notifyutil -g).")
        @OptionGroup var busOptions: BusOptions
        @Argument(help: "The notification name.") var name: String

        func run() async throws {
            guard try NotifyCommand.isShared(name) else { return emitLine("0") }
            let connection = try await busOptions.connect()
            let reply = try await callingHub {
                try await connection.callHub(NotifyMethod.getState, [.string(name)])
            }
            await connection.close()
            emitLine(String(reply.first?.uint64 ?? 0))
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a notification's state (notifyutil -s).",
            discussion: """
                The hub keeps it only while some process holds a registration for the name (a `wait`, \
                an app's notify registration): with none, a later get prints 0, as \
                `notifyutil -s NAME 1 -g NAME` does.
                """)
        @OptionGroup var busOptions: BusOptions
        @Argument(help: "The notification name.") var name: String
        @Argument(help: "The new state, an unsigned 64-bit number.") var state: UInt64

        func run() async throws {
            guard try NotifyCommand.isShared(name) else { return }
            let connection = try await busOptions.connect()
            _ = try await callingHub {
                try await connection.callHub(NotifyMethod.setState, [.string(name), .uint64(state)])
            }
            await connection.close()
        }
    }

    /// Whether the name goes to the device: false for a `self.` name, which stays in this
    /// process (said on stderr); a name outside the rule is bad usage.
    static func isShared(_ name: String) throws -> Bool {
        guard NotifyCenter.isValidName(name) else {
            throw failure("refused a name of \(name.utf8.count) bytes: \(NotifyCenter.nameRule)", code: ExitCodes.usage)
        }
        guard NotifyCenter.isProcessLocal(name) else { return true }
        note(
            "\(name) is private to this process (a \(NotifyCenter.processLocalPrefix) name): nothing of it leaves "
                + "this sdlab, and no other process's post or state reaches it")
        return false
    }
}
