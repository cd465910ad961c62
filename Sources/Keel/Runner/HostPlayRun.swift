/// One play on one host: probe every step in one round trip, then for each step compute its changes and (unless
/// checking) apply them and verify convergence (refreshing the later steps' probes too when the step may have
/// changed what they see); finally run the
/// handlers that changed steps named — also when a later step failed, unlike Ansible without `force_handlers`.
struct HostPlayRun {
    let play: Play
    /// The play's place in the playbook.
    let playIndex: Int
    let context: HostContext
    let session: RunState.Session
    let isFirstHost: Bool
    let options: RunOptions
    let state: RunState

    private var host: String { context.name }
    private var become: Become? { play.become ? session.target.privileged : nil }

    /// Returns false when the host failed.
    func run() async -> Bool {
        let steps: [Step]
        do {
            steps = try play.body(context).filter { options.selects(play.tags.union($0.tags)) }
        } catch {
            return await fail(report(named: "plan", .failed, error: "\(error)"))
        }
        var outputs: [ProbeOutput]
        do {
            let batch = ProbeBatch(probing: steps, isFirstHost: isFirstHost)
            if let read = await state.prefetch.outputs(for: batch, play: playIndex, on: host),
                converged(steps, read)
            {
                outputs = read
            } else {
                outputs = try await probe(batch)
            }
        } catch {
            return await fail(report(named: "probe", .failed, error: "\(error)"))
        }
        var notified: [Handler] = []
        // Under --check, a planned change that affects later steps (a package to install), in this play or an
        // earlier one, leaves their probes reading the host as it is now: what they cannot plan yet is shown, not
        // failed.
        var planAhead = await state.planningAhead.contains(host)
        var index = steps.startIndex
        while index < steps.endIndex {
            let step = steps[index]
            defer { index += 1 }
            if options.stopRequested {
                // Asked to stop: what ran keeps its handlers; the rest is counted, not run.
                await state.interrupted(host, steps: steps.count - index)
                return await runHandlers(notified)
            }
            if let batch = batch(from: index, of: steps, outputs) {
                guard await applyTogether(batch, from: index, of: steps, &outputs, notifying: &notified) else {
                    return false
                }
                index += batch.count - 1
                continue
            }
            if step.runOnce && !isFirstHost {
                await state.record(report(named: step.name, .skipped))
                continue
            }
            if step.resource is FlushHandlers {
                guard await runHandlers(notified) else { return false }
                notified = []
                // Handlers may have changed what the later steps see; planning them on stale outputs would be wrong.
                do {
                    outputs.replaceSubrange(index..., with: try await probe(Array(steps[index...])))
                } catch {
                    return await fail(report(named: "probe after handlers", .failed, error: "\(error)"))
                }
                continue
            }
            let start = ContinuousClock.now
            do {
                let changes = try step.resource.changes(from: outputs[index], on: context)
                // A wait changes nothing on the host: it is ok, with the time it took.
                let changed = !changes.isEmpty && !step.resource.isWait
                // Diffs are read before applying: afterwards the host already holds the new contents.
                let diffs = changed && (options.check || options.diff) ? await diffs(of: changes) : []
                let findings = HostExecutor.Findings()
                if let fresh = try await execute(step, changes, index: index, steps: steps, telling: findings) {
                    outputs.replaceSubrange(index..<index + fresh.count, with: fresh)
                }
                var result = report(named: step.name, changed ? .changed : .ok)
                result.changes = changes.map(\.summary) + findings.lines.withLock { $0 }
                result.commands = changes.flatMap(\.actions).map(\.description)
                result.diffs = diffs
                result.seconds = (ContinuousClock.now - start).seconds
                await state.record(result)
                if changed { notified += step.handlers.filter { !notified.contains($0) } }
                if changed && options.check && step.resource.affectsOtherResources && !planAhead {
                    planAhead = true
                    await state.planAhead(host)
                }
            } catch  where planAhead {
                var result = report(named: step.name, .changed)
                result.changes = ["planned once the changes above are made (now: \(error))"]
                await state.record(result)
            } catch {
                var result = report(named: step.name, .failed, error: "\(error)")
                result.seconds = (ContinuousClock.now - start).seconds
                // Changes already made still get their handlers: a config written but never reloaded would
                // otherwise look converged on the next run.
                _ = await runHandlers(notified)
                return await fail(result)
            }
        }
        return await runHandlers(notified)
    }

    /// Whether `outputs` show every step this host runs converged. Only then are outputs read ahead taken: a play
    /// they show with something to do, or a step that would fail on them, is planned on a probe made at its start.
    private func converged(_ steps: [Step], _ outputs: [ProbeOutput]) -> Bool {
        zip(steps, outputs).allSatisfy { step, output in
            (step.runOnce && !isFirstHost) || (try? step.resource.changes(from: output, on: context))?.isEmpty == true
        }
    }

    /// Records `report` and marks the host failed; returns false, for the caller to return.
    private func fail(_ report: StepReport) async -> Bool {
        await state.record(report)
        await state.markFailed(host)
        return false
    }

    /// The consecutive steps from `index` whose changes can be applied together (``Resource/isBatchable``, no
    /// retries, every action batchable), each with its changes; nil when the step at `index` is not one.
    private func batch(from index: Int, of steps: [Step], _ outputs: [ProbeOutput]) -> [[Change]]? {
        guard !options.check else { return nil }
        var batch: [[Change]] = []
        for (step, output) in zip(steps[index...], outputs[index...]) {
            guard step.resource.isBatchable, step.retries == 0, !step.runOnce,
                let changes = try? step.resource.changes(from: output, on: context),
                changes.allSatisfy({ $0.actions.allSatisfy(ActionBatch.accepts) })
            else { break }
            batch.append(changes)
        }
        return batch.isEmpty ? nil : batch
    }

    /// Applies `batch`, the changes of the steps from `index` on, and probes those steps again, in one round trip,
    /// and records a report for each. Returns false when one failed: it is reported, the host marked
    /// failed, and the handlers of the steps before it run.
    private func applyTogether(
        _ batch: [[Change]], from index: Int, of steps: [Step], _ outputs: inout [ProbeOutput],
        notifying notified: inout [Handler]
    ) async -> Bool {
        let start = ContinuousClock.now
        let members = Array(zip(steps[index..<index + batch.count], batch))
        let changing = members.indices.filter { !members[$0].1.isEmpty }
        var diffs: [[String]] = []
        if options.diff { for (_, changes) in members { diffs.append(await self.diffs(of: changes)) } }
        // The step that failed, by its offset in the batch, and why.
        var failure: (offset: Int, error: String)?
        var fresh = Array(outputs[index..<index + batch.count])
        var trees: [Int: Int] = [:]
        do {
            if !changing.isEmpty {
                await state.prefetch.discard()
                let reprobe = ProbeBatch(probing: members.map(\.0), isFirstHost: isFirstHost)
                let actions = ActionBatch(changing.map { members[$0].1.flatMap(\.actions) }, thenProbing: reprobe)
                trees = actions.trees
                // The probe's output stays out of the command's report.
                let (_, probed) = try await executor(telling: HostExecutor.Findings()).run(
                    actions.command, input: actions.input, reporting: ActionBatch.split)
                fresh = try reprobe.split(probed ?? "")
            }
        } catch let error as CommandFailure {
            let taken = min(ActionBatch.completed(in: error.result.stdoutText), changing.count - 1)
            let offset = changing[taken]
            let commands = members[offset].1.flatMap(\.actions).map(\.description).joined(separator: "; ")
            let why = "\(CommandFailure(command: commands, result: error.result))"
            failure = (
                offset,
                trees[taken].map { "this step and the next \($0 - 1), made as one new tree, left nothing: " + why }
                    ?? why
            )
        } catch {
            _ = await runHandlers(notified)
            return await fail(report(named: "apply and probe \(changing.count) files", .failed, error: "\(error)"))
        }
        let seconds = (ContinuousClock.now - start).seconds / Double(max(1, changing.count))
        for (offset, (step, changes)) in members.enumerated() {
            var result = report(named: step.name, changes.isEmpty ? .ok : .changed)
            if let failure, failure.offset == offset {
                result.status = .failed
                result.error = failure.error
            } else if failure == nil, !changes.isEmpty {
                do {
                    let remaining = try step.resource.changes(from: fresh[offset], on: context)
                    if !remaining.isEmpty {
                        result.status = .failed
                        result.error =
                            "applied, but it did not converge: still \(remaining.map(\.summary).joined(separator: "; "))"
                    }
                } catch {
                    result.status = .failed
                    result.error = "\(error)"
                }
            }
            result.changes = changes.map(\.summary)
            result.commands = changes.flatMap(\.actions).map(\.description)
            result.diffs = diffs.isEmpty ? [] : diffs[offset]
            result.seconds = changes.isEmpty ? 0 : seconds
            if result.status == .failed {
                _ = await runHandlers(notified)
                return await fail(result)
            }
            await state.record(result)
            if !changes.isEmpty { notified += step.handlers.filter { !notified.contains($0) } }
        }
        outputs.replaceSubrange(index..<index + fresh.count, with: fresh)
        return true
    }

    /// Unless checking, applies one step's `changes` until the step converges; what applying tells goes to
    /// `findings`.
    /// - Returns: the fresh probe outputs of this step (and of the ones after it, when applying it may have changed
    ///   what they see); nil when nothing was applied.
    private func execute(
        _ step: Step, _ changes: [Change], index: Int, steps: [Step], telling findings: HostExecutor.Findings
    ) async throws -> [ProbeOutput]? {
        guard !changes.isEmpty, !options.check else { return nil }
        await state.prefetch.discard()
        let (reporter, host, play, slow) = (state.reporter, host, play.name, options.slowStep)
        let notice = Task {
            try await Task.sleep(for: slow)
            reporter.report(.stepRunning(host: host, play: play, step: step.name))
        }
        defer { notice.cancel() }
        var attempt = 0
        while true {
            do {
                try await step.resource.apply(changes, on: executor(telling: findings))
                let fresh = try await probe(
                    Array(step.resource.affectsOtherResources ? steps[index...] : steps[index...index]))
                let remaining = try step.resource.changes(from: fresh[0], on: context)
                // A wait that returned saw its condition hold; one that holds only for a moment (a replica's
                // streaming while Patroni restarts it) must not fail the host when probed again.
                if !remaining.isEmpty && !step.resource.alwaysChanges && !step.resource.isWait {
                    throw ResourceError(
                        "applied, but it did not converge: still \(remaining.map(\.summary).joined(separator: "; "))")
                }
                return fresh
            } catch {
                attempt += 1
                guard attempt <= step.retries else { throw error }
                try await Task.sleep(for: step.retryDelay)
            }
        }
    }

    private func runHandlers(_ handlers: [Handler]) async -> Bool {
        if !handlers.isEmpty && !options.check { await state.prefetch.discard() }
        for handler in Handler.merged(handlers) {
            if options.check {
                await state.reporter.report(
                    .handler(host: host, name: handler.description, status: .changed, error: nil))
                continue
            }
            do {
                try await executor(telling: HostExecutor.Findings()).run(handler.command.text)
                await state.reporter.report(
                    .handler(host: host, name: handler.description, status: .changed, error: nil))
            } catch {
                await state.reporter.report(
                    .handler(host: host, name: handler.description, status: .failed, error: "\(error)"))
                return await fail(report(named: "handler \(handler)", .failed, error: "\(error)"))
            }
        }
        return true
    }

    /// Runs the probes of `steps` in one remote invocation; a step that runs once, on another host, is not probed
    /// (its output is empty).
    private func probe(_ steps: [Step]) async throws -> [ProbeOutput] {
        try await probe(ProbeBatch(probing: steps, isFirstHost: isFirstHost))
    }

    private func probe(_ batch: ProbeBatch) async throws -> [ProbeOutput] {
        guard !batch.probes.isEmpty else { return [] }
        let result = try await session.transport.run(
            ProbeBatch.command, input: Array(batch.script.utf8), become: become, timeout: .seconds(300))
        return try batch.split(result.stdoutText)
    }

    /// Unified diffs of the file contents among `changes`, against what the host has now.
    private func diffs(of changes: [Change]) async -> [String] {
        var diffs: [String] = []
        for content in changes.compactMap(\.content) {
            if content.isSecret {
                diffs.append("--- \(content.path): secret contents, not shown\n")
                continue
            }
            // Read as the account that controls the path, and only a regular file: never what a link points to.
            let current =
                content.showsCurrent
                ? try? await session.transport.run(
                    PathController.run("cat -- \(content.path) 2>/dev/null", as: content.readAs).text,
                    become: become, timeout: .seconds(60)) : nil
            let old = current?.stdout ?? []
            if old.contains(0) || content.desired.contains(0) {
                diffs.append("--- \(content.path): binary contents differ\n")
                continue
            }
            diffs.append(
                UnifiedDiff.make(
                    old: SecretLines.redacted(String(decoding: old, as: UTF8.self)),
                    new: SecretLines.redacted(String(decoding: content.desired, as: UTF8.self)), path: content.path))
        }
        return diffs
    }

    private func executor(telling findings: HostExecutor.Findings) -> HostExecutor {
        let reporter = state.reporter
        let host = self.host
        let output = LastOutputLine { line in reporter.report(.stepOutput(host: host, line: line)) }
        return HostExecutor(
            context: context, transport: session.transport, become: become, findings: findings, observe: output.take
        ) { command, result in
            reporter.report(
                .command(
                    host: host, command: command, exitStatus: result.exitStatus, stdout: result.stdoutText,
                    stderr: result.stderrText))
        }
    }

    private func report(named name: String, _ status: StepStatus, error: String? = nil) -> StepReport {
        StepReport(
            host: host, play: play.name, step: name, status: status, changes: [], commands: [], diffs: [], seconds: 0,
            error: error)
    }
}
