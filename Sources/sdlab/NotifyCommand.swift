import ArgumentParser
import DBusKit
import DeviceContract
import DeviceProcesses
import Hub

struct NotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Post, wait for, read and set Darwin-style notifications (like notifyutil).",
        discussion: """
            A post is a `dev.sdlab.Notify1.Posted(name)` signal from /dev/sdlab/Notify: any process \
            may post any name, and a post carries no payload. Each name also has a 64-bit state \
            kept by the hub.
            """,
        subcommands: [Post.self, Wait.self, Get.self, Set.self]
    )

    struct Post: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Post a notification (notifyutil -p).")
        @OptionGroup var busOptions: BusOptions
        @Argument(help: "The notification name.") var name: String

        func run() async throws {
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
            discussion: "Exits 0 when the post arrives, 1 after the timeout. Says on stderr when it listens.")
        @OptionGroup var busOptions: BusOptions
        @Argument(help: "The notification name.") var name: String
        @Option(help: "How long to wait, e.g. 500ms, 30s, 2m.") var timeout: Duration = .seconds(30)

        func run() async throws {
            let connection = try await busOptions.connect()
            let posts: AsyncStream<Message>
            do {
                posts = try await connection.signals(matching: DeviceBus.posts(of: name))
            } catch {
                await connection.close()
                throw failure("cannot wait for \"\(name)\": \(error)", code: ExitCodes.usage)
            }
            note("waiting for \(name)")
            let arrived = await firstPost(posts, within: timeout)
            await connection.close()
            guard arrived else { throw failure("no post of \(name) within \(timeout)", code: ExitCodes.failed) }
            emitLine(name)
        }

        private func firstPost(_ posts: AsyncStream<Message>, within timeout: Duration) async -> Bool {
            await firstOf([
                {
                    for await _ in posts { return true }
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
            let connection = try await busOptions.connect()
            let reply = try await callingHub {
                try await connection.callHub(NotifyMethod.getState, [.string(name)])
            }
            await connection.close()
            emitLine(String(reply.first?.uint64 ?? 0))
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a notification's state (notifyutil -s).")
        @OptionGroup var busOptions: BusOptions
        @Argument(help: "The notification name.") var name: String
        @Argument(help: "The new state, an unsigned 64-bit number.") var state: UInt64

        func run() async throws {
            let connection = try await busOptions.connect()
            _ = try await callingHub {
                try await connection.callHub(NotifyMethod.setState, [.string(name), .uint64(state)])
            }
            await connection.close()
        }
    }
}
