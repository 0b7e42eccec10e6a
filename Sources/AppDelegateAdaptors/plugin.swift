import Foundation
import PackagePlugin

/// Lets `@UIApplicationDelegateAdaptor(AppDelegate.self)` make a delegate that derives from
/// `NSObject`, as most SwiftUI apps' do. iOS makes it through the Objective-C runtime; Linux's
/// Swift can make an instance of a class it is given only through a `required` initializer,
/// which `NSObject`'s is not. So, at build time, for each delegate type the target's sources
/// give the adaptor, this writes an initializer of the adaptor for that type, which the
/// compiler picks over the general one: `AppDelegate()` is written where the type is known.
@main struct AppDelegateAdaptors: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target as? SourceModuleTarget else { return [] }
        let sources = module.sourceFiles(withSuffix: "swift").map(\.url)
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("AppDelegateAdaptors.swift")
        return [
            .buildCommand(
                displayName: "Finding the app delegates of \(target.name)",
                executable: try context.tool(named: "sdlab-adaptors").url,
                arguments: [output.path] + sources.map(\.path), inputFiles: sources, outputFiles: [output])
        ]
    }
}
