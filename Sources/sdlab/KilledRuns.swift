import DeviceProcesses

/// Removes the folders that runs killed outright (SIGKILL) left in `base`, and says so, or why
/// one could not be: their guard ended their processes, but nothing of theirs could remove the
/// folder, which holds the test users' records (`LockedRunFolder`).
func removeFoldersOfKilledRuns(in base: String = DevicePaths.temporaryBase) {
    for folder in LockedRunFolder.removeFoldersOfKilledRuns(in: base) {
        if let failure = folder.failure {
            note("sdlab: the folder of a run that was killed is left: \(failure)")
        } else {
            note("sdlab: removed the folder of a run that was killed: \(folder.path)")
        }
    }
}
