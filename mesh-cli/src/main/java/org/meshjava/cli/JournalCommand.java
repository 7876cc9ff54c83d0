package org.meshjava.cli;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.identity.DidKeyException;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.LinkSpend;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotState;
import org.meshjava.journal.Suspension;
import org.meshjava.journal.Unresolved;
import org.meshjava.journal.internal.GrantSuspension;
import org.meshjava.journal.internal.HeldJournals;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalIo;
import org.meshjava.journal.internal.JournalReplay;
import org.meshjava.journal.internal.JournalSegments;
import org.meshjava.journal.internal.LineReader;
import org.meshjava.journal.internal.LockHolder;
import org.meshjava.journal.internal.LogReplay;
import org.meshjava.journal.internal.OwnerOnly;
import org.meshjava.journal.internal.RecordCodec;
import org.meshjava.journal.internal.ReplayState;
import org.meshjava.journal.internal.UnlockedRead;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code mesh journal inspect|verify|export|import|resume-grants|adopt}: read a steward's decision
 * journal (§2.2), a file or a PostgreSQL database's, without locking or changing it; copy it
 * between the two; lift a suspension; take over a database's copy of a journal.
 *
 * <p>Both check the record chain and then replay it the way a restarting steward does: through a
 * gate held by the steward, every authorisation decided again at its recorded time. The journal
 * does not record the steward's identity, but every grant it decided names the steward as its
 * leaf's subject, so the holder is read from the first authorisation; {@code --steward} or {@code
 * --key} names it instead. Spend per grant is what the replayed gate holds: debits plus the
 * ceilings of unresolved serves.
 */
@Command(
    name = "journal",
    description =
        "Inspect or verify a steward's decision journal (a file or postgresql://…); archive what"
            + " its snapshot covers; export it to a file or import one into a database; lift a"
            + " suspension of grants; adopt a database's copy of a journal.",
    subcommands = {
      JournalCommand.Inspect.class,
      JournalCommand.Verify.class,
      JournalCommand.Archive.class,
      JournalCommand.Export.class,
      JournalCommand.Import.class,
      JournalCommand.ResumeGrants.class,
      JournalCommand.Adopt.class
    })
final class JournalCommand extends CommandGroup {
  /**
   * The journal a subcommand reads or changes, named on its command line: a file, or a PostgreSQL
   * database (the steward's journal in it is chosen by {@code --steward} or {@code --key}).
   */
  static final class JournalArgument {
    @Parameters(
        index = "0",
        paramLabel = "FILE|URL",
        description = "The journal: a file, or a PostgreSQL database (postgresql://…).")
    String text;

    /** What the argument names, parsed; refused with a one-line message if it names nothing. */
    JournalTarget target() throws CliException {
      return JournalTarget.parse(text);
    }
  }

  /**
   * What inspect, verify, export and import share: the journal they read (checked to form one
   * chain), the steward it is named by, progress on stderr, and the replay.
   */
  abstract static class Common extends MeshCommand implements Callable<Integer> {
    @Mixin JournalArgument journal;

    /** The journal as typed, for messages (a URL without its password). */
    String file = "";

    @Option(
        names = "--steward",
        paramLabel = "DID",
        description = "The steward's did:key (default: the subject of the first decided grant).")
    String steward;

    @Option(
        names = "--key",
        paramLabel = "FILE",
        description = "The steward's key file: names the steward as --steward does.")
    Path key;

    long progressEvery;

    @Option(
        names = "--progress-every",
        defaultValue = "100000",
        paramLabel = "N",
        description =
            "Report progress on stderr every N records (default ${DEFAULT-VALUE}; 0: never).")
    void progressEvery(long n) {
      if (n < 0) {
        // Negative would silently mean never, as 0 does; a typo is worth saying.
        throw new ParameterException(
            spec.commandLine(), "--progress-every must be 0 or more, not " + n);
      }
      progressEvery = n;
    }

    /** The journal named on the command line, resolved for reading (its records streamed). */
    JournalTarget.Reader reader() throws CliException {
      JournalTarget target = journal.target();
      file = JournalTarget.describe(target);
      try {
        return JournalTarget.reader(target, named());
      } catch (JournalException e) {
        throw failed(e);
      }
    }

    /** Streams the journal's records, checked to form one chain, to {@code visitor}. */
    JournalFile.End scan(JournalTarget.Reader reader, JournalFile.Visitor visitor)
        throws CliException {
      try {
        return reader.scan(progress(), visitor);
      } catch (JournalException e) {
        throw failed(e);
      }
    }

    /**
     * What to say of a journal that holds no whole record, or null when it holds some. A file
     * journal in that state is what a steward killed before its first record leaves (empty, or one
     * line cut short), and the steward starts again on it as a new journal, so it is reported, with
     * exit 0, as holding nothing yet. A database journal is only found by its records ({@link
     * JournalTarget#name} refuses a steward with none, a probable typo), so one that streams none
     * was emptied meanwhile, and is refused as that refusal would.
     */
    @Nullable String noRecordsYet(JournalFile.End end, String what) throws CliException {
      if (end.count() > 0) {
        return null;
      }
      if (!(journal.target() instanceof JournalTarget.File)) {
        throw new CliException(file + " holds no records; nothing to " + what);
      }
      return "holds no records yet; nothing to " + what + tornTail(end, "will be dropped");
    }

    /**
     * The note on a final line without a newline (an append cut short), which {@code fate} says
     * what becomes of; empty when there is none.
     */
    static String tornTail(JournalFile.End end, String fate) {
      return end.tornTail() > 0
          ? "; a final line of "
              + end.tornTail()
              + " bytes without a newline is an append cut short and "
              + fate
          : "";
    }

    /** A failure reading or replaying the journal, named by it. */
    CliException failed(JournalException e) {
      return new CliException(namedBy(file, e), e);
    }

    /** Told the count of records checked so far, reports it on stderr every --progress-every. */
    LongConsumer progress() {
      return n -> {
        if (progressEvery > 0 && n % progressEvery == 0) {
          err().println("checked " + Counted.of(n, "record") + "…");
        }
      };
    }

    /** The steward named by --steward or --key, as a database journal's name. */
    Optional<String> named() throws CliException {
      return namedSteward().map(DidKey::toString);
    }

    /** The steward --steward or --key named, once {@link #namedSteward()} has read it. */
    private @Nullable DidKey namedOnce;

    /** Whether {@link #namedSteward()} has read it, and what that read threw, if it failed. */
    private boolean namedRead;

    private @Nullable CliException namedFailure;

    /**
     * The steward --steward or --key names, read once in a command: a key file given as a pipe
     * ({@code --key <(cat key)}) yields its bytes to one read alone, and a command asks for the
     * steward at several steps, each again when it reads the journal again ({@link UnlockedRead}).
     */
    Optional<DidKey> namedSteward() throws CliException {
      if (!namedRead) {
        try {
          namedOnce = JournalCommand.namedSteward(steward, key).orElse(null);
        } catch (CliException e) {
          namedFailure = e;
        }
        namedRead = true;
      }
      if (namedFailure != null) {
        throw namedFailure;
      }
      return Optional.ofNullable(namedOnce);
    }

    /**
     * The steward: named by --steward or --key, else the subject of the first decided grant (the
     * journal is read until one is found).
     */
    Optional<DidKey> holder(JournalTarget.Reader reader) throws CliException {
      Optional<DidKey> named = namedSteward();
      if (named.isPresent()) {
        return named;
      }
      return firstNamedSteward(sink -> reader.scan(n -> {}, (r, line) -> sink.accept(r)));
    }

    /** Streams a journal's records into a sink. */
    @FunctionalInterface
    interface RecordStream {
      void into(Journal.RecordSink sink) throws JournalException;
    }

    /**
     * The steward the first record that names one names, among the records {@code records} streams;
     * reading stops there. A decided grant names it as its subject (every grant a steward decides
     * does), and a recorded suspension as the signer of the receipt shown as evidence, or as the
     * origin of the checkpoint shown: a journal of ungranted serves only may hold a suspension and
     * no grant.
     */
    Optional<DidKey> firstNamedSteward(RecordStream records) throws CliException {
      List<DidKey> found = new ArrayList<>(1);
      try {
        records.into(
            r -> {
              Optional<DidKey> named = stewardNamedBy(r.entry());
              if (named.isPresent()) {
                found.add(named.get());
                throw new JournalException(JournalException.Reason.CLOSED, "found", null);
              }
            });
      } catch (JournalException e) {
        if (found.isEmpty()) {
          throw failed(e);
        }
      }
      return found.stream().findFirst();
    }

    private static Optional<DidKey> stewardNamedBy(JournalEntry entry) {
      if (entry instanceof JournalEntry.Authorised a) {
        return Optional.of(a.presentation().chain().leaf().grant().subject());
      }
      if (entry instanceof JournalEntry.Suspended x) {
        try {
          return Optional.of(org.meshjava.receipt.Jcr1.open(x.envelope()).receipt().steward());
        } catch (org.meshjava.receipt.ReceiptException e) {
          return Optional.empty(); // the replay refuses it, naming the record
        }
      }
      if (entry instanceof JournalEntry.SuspendedByCheckpoint x) {
        // The origin of a checkpoint is its log's name, the steward's did:key (SPEC.md §65).
        try {
          return Optional.of(
              DidKey.parse(
                  org.meshjava.receipt.tlog.Checkpoint.parse(x.checkpoint().text()).origin()));
        } catch (org.meshjava.receipt.tlog.LogException | DidKeyException e) {
          return Optional.empty(); // the replay refuses it, naming the record
        }
      }
      return Optional.empty();
    }

    /**
     * Streams the journal through a replay by a gate held by {@code holder} (a fresh identity when
     * none is known), as a restarting steward replays it. Each record goes to {@code read} as it is
     * read, and to {@code replayed} once it has been replayed ({@link ReplayBatch}).
     */
    Scanned scanAndReplay(
        JournalTarget.Reader reader,
        Optional<DidKey> holder,
        JournalFile.Visitor read,
        Journal.RecordSink replayed)
        throws CliException {
      DidKey h = holder.orElse(org.meshjava.jcp.Jcp.identity(org.meshjava.jcp.Jcp.newKey()));
      Gate gate = Gate.create(h, SpendLedger.inMemory(), Revocations.none());
      // No receipt's id is needed once it has passed (the checkpoints are checked by a window of
      // their own), so none is kept: the memory does not grow with the receipts.
      ReplayBatch batch = new ReplayBatch(ReplayState.freshWithoutIds(gate), replayed);
      JournalFile.End end =
          scan(
              reader,
              (r, line) -> {
                read.accept(r, line);
                batch.add(r);
              });
      try {
        return new Scanned(new Replayed(gate, batch.flush().result()), end);
      } catch (JournalException e) {
        throw failed(e);
      }
    }
  }

  /** A streamed replay's outcome and where the journal's whole records ended. */
  record Scanned(Replayed replayed, JournalFile.End end) {}

  /**
   * Checks the journal's {@code Checkpoint} records as they stream past, the way a starting steward
   * does (SPEC.md §65): each signed with the steward's key, and reproduced by the tree over the
   * receipts before it. A journal edited and re-hashed without the key fails here even though its
   * chain is whole. The key is the holder's, else the first checkpoint's origin.
   */
  static final class CheckpointCheck implements Journal.RecordSink {
    private final LogReplay.Checker checker;
    private @Nullable NoteVerifierKey logKey;
    private @Nullable DidKey origin;
    private final boolean keyFromCheckpoint;

    CheckpointCheck(Optional<DidKey> holder) {
      this(holder, new LogReplay.Checker(0));
    }

    /** A check that goes on from {@code checker} (resumed from a snapshot's receipts). */
    CheckpointCheck(Optional<DidKey> holder, LogReplay.Checker checker) {
      this.checker = checker;
      this.logKey = holder.map(Checkpoint::logKey).orElse(null);
      this.keyFromCheckpoint = holder.isEmpty();
    }

    @Override
    public void accept(JournalRecord r) throws JournalException {
      if (logKey == null && r.entry() instanceof JournalEntry.Checkpoint c) {
        origin = Verify.originOf(c, r);
        logKey = Checkpoint.logKey(origin);
      }
      checker.accept(r, logKey);
    }

    /**
     * The steward the journal's first checkpoint names as its log's origin, when no steward was
     * named and the grants named none: a journal of ungranted serves names its steward only there.
     */
    Optional<DidKey> origin() {
      return Optional.ofNullable(origin);
    }

    /** What the check found, for the verify line. */
    String summary() {
      int checked = checker.checkpoints();
      if (checked == 0) {
        return "; no checkpoint of the transparency log to check";
      }
      return "; "
          + Counted.of(checked, "signed checkpoint")
          + " reproduced by its receipts"
          + (keyFromCheckpoint
              ? " (whose key is taken from the first checkpoint; name it with --steward)"
              : "");
    }
  }

  record Replayed(Gate gate, JournalReplay.Result result) {}

  @Command(
      name = "verify",
      description = {
        "Check the record chain, replay it and check its signed checkpoints; exit 1 naming the"
            + " first bad record.",
        // Its own paragraph: `mesh journal --help` lists each command by its first one only.
        "Streamed: it holds what a steward holds live (spent presentations until their chains"
            + " expire, unresolved serves, revocations) and 32 bytes per receipt after the latest"
            + " checkpoint (of a journal archived into segments, also the ids of the receipts its"
            + " latest snapshot covers)."
      })
  static final class Verify extends Common {
    final SnapshotDirectory snapshots = new SnapshotDirectory();

    @Option(
        names = "--snapshots",
        paramLabel = "DIR",
        description =
            "The steward's snapshot directory (default: FILE.snapshots beside a journal file; for"
                + " a database, its table mesh_journal_snapshot).")
    void snapshots(Path dir) {
      snapshots.dir = dir;
    }

    @Override
    public Integer call() throws CliException {
      JournalTarget target = journal.target();
      if (!(target instanceof JournalTarget.File f)) {
        return verifyWhole();
      }
      // It takes no lock, so an archive, or a steward's opening settling what one left, may move
      // the files between its reads: a verify that failed while they changed is made again
      // (SPEC.md 60.8, "Verifying").
      return UnlockedRead.run(f.path(), () -> verifyFile(f.path()));
    }

    /** Verifies the journal file at {@code path}, once. */
    private Integer verifyFile(Path path) throws CliException {
      file = path.toString();
      snapshots.tooLarge = null;
      if (!Files.isRegularFile(path)) {
        throw JournalTarget.noJournal(path);
      }
      try {
        // With --snapshots naming a folder elsewhere, that folder may prove a damaged one-line
        // file a journal, as it does when the steward opens it (SPEC.md 60).
        long firstSeq =
            snapshots.dir != null
                ? FileJournal.firstSequence(path, snapshots.dir)
                : FileJournal.firstSequence(path);
        if (firstSeq == 0) {
          // Nothing archived: the whole file, read and replayed, its checkpoints checked (§65).
          return verifyWhole();
        }
      } catch (JournalException e) {
        throw new CliException(namedBy(file, e), e);
      }
      LongConsumer progress = progress();
      try {
        Optional<Snapshot> snap = snapshots.latest(path, namedSteward());
        long first = FileJournal.firstSequence(path);
        boolean whole = first == 0 || JournalSegments.from0(path);
        // The first segments removed and later ones kept: the records before those are what is
        // absent, said as such (their links are checked from there, as a start checks them).
        long kept = whole ? -1 : JournalSegments.keptFrom(path, first);
        long absent = kept >= 0 ? kept : first;
        String archived =
            kept >= 0
                ? "records 0 to "
                    + (kept - 1)
                    + " were archived and their segment is missing from "
                    + JournalSegments.directory(path)
                    + " (the first segment there begins at record "
                    + kept
                    + ")"
                : "records 0 to " + (first - 1) + " were archived without their segments";
        SnapshotDirectory.TooLargeSnapshot big = snapshots.tooLarge;
        if (!whole && big != null) {
          // As a start fails ARCHIVED: nothing readable holds the archived records' state.
          throw new CliException(
              file
                  + ": "
                  + archived
                  + ", and the latest snapshot is too large"
                  + " to read, so a steward cannot start on this journal (ARCHIVED); put the"
                  + " journal's segments back to check them ("
                  + big.why()
                  + ")");
        }
        if (!whole && snap.isEmpty()) {
          throw new CliException(
              file
                  + (kept >= 0
                      ? ": "
                          + archived
                          + ", and no snapshot is present to stand for them, so a"
                          + " steward cannot start on this journal (ARCHIVED); put back the"
                          + " segments holding records 0 to "
                          + (kept - 1)
                          + " (the first is named "
                          + JournalSegments.file(path, 0).getFileName()
                          + ")"
                      : ": records 0 to "
                          + (first - 1)
                          + " were archived, and neither their segments nor a snapshot are"
                          + " present; nothing to check them against"));
        }
        DidKey h;
        ReplayState state;
        // The checkpoints are checked as a start checks them (SPEC.md §65): each reproduced by the
        // receipts before it, from the journal's first record, or from the snapshot's receipts and
        // its checkpoint as a start seeds its log, in a window of the roots still to be signed.
        CheckpointCheck log;
        // The journal seals (SPEC 65) under the steward's key: the snapshot's signer, the named or
        // found holder, else the first checkpoint's origin.
        Optional<DidKey> sealer;
        if (whole) {
          sealer = holder(snap, path);
          h = sealer.orElse(org.meshjava.jcp.Jcp.identity(org.meshjava.jcp.Jcp.newKey()));
          state = ReplayState.fresh(Gate.create(h, SpendLedger.inMemory(), Revocations.none()));
          if (snap.isEmpty()) {
            state.forgetReceiptIds(); // no snapshot to compare them with
          }
          log = new CheckpointCheck(sealer);
        } else {
          Snapshot s = snap.orElseThrow();
          h = s.steward();
          sealer = Optional.of(h);
          state = ReplayState.restore(s.state(), s.gate(Revocations.none()));
          // Nothing compares them from here on: the memory does not grow with the live file.
          state.forgetReceiptIds();
          log =
              new CheckpointCheck(
                  Optional.of(h),
                  LogReplay.Checker.resume(
                      s.state().receipts(), s.state().checkpoint(), Checkpoint.logKey(h)));
        }
        long start = state.position().count();
        if (!whole && steward == null && key == null) {
          // Only the snapshot names a steward here (the records before it are gone), so a
          // snapshot of another steward's would be taken at its word and the live file then fail
          // to follow it; the live file's own checkpoints show whose journal it is, and a start,
          // which knows its key, refuses such a snapshot as OTHER_STEWARD (SPEC.md §60.8).
          Optional<DidKey> live = liveFileCheckpointOrigin(path, first);
          String other =
              live.isPresent()
                  ? otherSteward(snap.orElseThrow(), live.get(), "the live file's checkpoints name")
                  : null;
          if (other != null) {
            throw new CliException(file + ": " + other);
          }
        }
        if (!whole) {
          // The live file's records the snapshot covers, checked as a start checks them (SPEC.md
          // §60.8): an edit there passed here, saying they were not checked, and started.
          Optional<org.meshjava.journal.JournalPosition> shorter =
              FileJournal.checkLinksBefore(path, start);
          if (shorter.isPresent()) {
            // Cut behind the snapshot: refused as a start refuses it (AHEAD_OF_JOURNAL), not as a
            // position past the end, which named neither the reason nor the likely cause.
            checkSnapshotPosition(snap.orElseThrow(), shorter.get(), null);
          }
        }
        boolean stewardFromSnapshot = snap.isPresent() && steward == null && key == null;
        ReplayBatch batch = new ReplayBatch(state, r -> {});
        long[] checked = {0};
        boolean[] matched = {false};
        // The hash the record after a too-large snapshot's position links to.
        org.meshjava.core.ContentId[] bigCovered = {null};
        // The reader adds each Chain record to the table it decodes with as it reads the line,
        // before the record reaches the replay; a table of its own keeps a Chain record just after
        // the snapshot's position out of the state compared with the snapshot there.
        FileJournal.scan(
            path,
            state.position(),
            new java.util.HashMap<>(state.chains()),
            r -> {
              if (big != null && r.seq() == big.header().position().count()) {
                bigCovered[0] = r.prev().orElse(null);
              }
              if (whole && snap.isPresent() && r.seq() == snap.get().position().count()) {
                matched[0] = checkSnapshot(snap.get(), h, batch.flush());
                // Compared: the ids are needed no further.
                state.forgetReceiptIds();
              }
              if (stewardFromSnapshot && r.entry() instanceof JournalEntry.Authorised a) {
                // The snapshot named the steward replayed as; a grant held by another shows
                // that the snapshot is not this journal's steward's (as the start refuses it).
                String other =
                    otherSteward(
                        snap.get(),
                        a.presentation().chain().leaf().grant().subject(),
                        "journal record " + r.seq() + " decides a grant held by");
                if (other != null) {
                  throw new JournalException(JournalException.Reason.SNAPSHOT_REFUSED, other, null);
                }
              }
              log.accept(r);
              batch.add(r);
              checked[0]++;
              progress.accept(checked[0]);
            });
        batch.flush();
        long n = state.position().count();
        if (whole && snap.isPresent() && n == snap.get().position().count()) {
          matched[0] = checkSnapshot(snap.get(), h, state);
        }
        if (whole && snap.isPresent() && !matched[0]) {
          // Fewer records than the snapshot covers (a record at its position would have been
          // checked against it): refused as the start refuses it, as for a file never archived.
          checkSnapshotPosition(snap.get(), state.position(), null);
        }
        if (big != null) {
          org.meshjava.journal.SnapshotHeader header = big.header();
          org.meshjava.journal.JournalPosition end = state.position();
          checkCovered(
              header.position(),
              () -> header.checkAgainst(sealer.orElse(header.steward()), end),
              n == header.position().count() ? end.lastHash().orElse(null) : bigCovered[0],
              "the latest snapshot's header");
        }
        JournalReplay.Result r = state.result();
        report(
            out(),
            file,
            (whole
                    ? formOneChain(n)
                    : (n == start
                            ? "no records follow the snapshot at record "
                                + start
                                + " signed by "
                                + h
                                + ", which the journal ends with; records 0 to "
                            : "records "
                                + start
                                + " to "
                                + (n - 1)
                                + " follow the snapshot at record "
                                + start
                                + " signed by "
                                + h
                                + ", and form one chain and replay; records 0 to ")
                        + (absent - 1)
                        + ", which it covers, were not checked ("
                        + (kept >= 0
                            ? archived
                            : "records 0 to "
                                + (first - 1)
                                + " are archived without their segments")
                        + ")"
                        + (absent < start
                            ? ", and records "
                                + absent
                                + " to "
                                + (start - 1)
                                + " by their links only"
                            : ""))
                + "; "
                + replayed(r)
                + log.summary()
                + (matched[0]
                    ? "; the snapshot at record "
                        + snap.orElseThrow().position().count()
                        + " matches the replay"
                    : "")
                + headerOnly(big));
        return 0;
      } catch (JournalException | SnapshotException e) {
        throw new CliException(namedBy(file, e), e);
      }
    }

    /**
     * A journal in a database, or a file with nothing archived: streamed through the replay and the
     * check of its checkpoints, in bounded memory however long it is.
     */
    private Integer verifyWhole() throws CliException {
      JournalTarget.Reader reader = reader();
      Optional<DidKey> holder = holder(reader);
      CheckpointCheck log = new CheckpointCheck(holder);
      // A file's snapshot records how many records the steward had and the hash of the last; a
      // journal shorter than that, or with another record there, was cut or replaced, and the
      // steward refuses to start on it (SPEC.md 60.8), so verify must not call it whole.
      // A database's snapshots are in its table mesh_journal_snapshot (SPEC.md 60.7), checked as
      // a file's are: a journal rolled back behind its latest row, or that row altered, would
      // otherwise pass here while its steward refuses to start on it.
      Optional<Snapshot> snap;
      try {
        snap =
            switch (journal.target()) {
              case JournalTarget.File f -> snapshots.latest(f.path(), namedSteward());
              case JournalTarget.Postgres p ->
                  snapshots.latest(
                      p.location(), JournalTarget.name(p.location(), named()), namedSteward());
            };
      } catch (SnapshotException e) {
        throw new CliException(file + ": the latest snapshot is refused: " + e.getMessage(), e);
      } catch (JournalException e) {
        throw failed(e);
      }
      String other =
          snap.isPresent() && holder.isPresent()
              ? otherSteward(snap.get(), holder.get(), "the journal's grants name")
              : null;
      if (other != null) {
        throw new CliException(file + ": " + other);
      }
      SnapshotDirectory.TooLargeSnapshot big = snapshots.tooLarge;
      long covered =
          snap.map(x -> x.position().count())
              .orElse(big == null ? 0L : big.header().position().count());
      org.meshjava.core.ContentId[] atCovered = {null};
      Scanned s =
          scanAndReplay(
              reader,
              holder,
              (r, line) -> {
                if (r.seq() == covered - 1) {
                  atCovered[0] = org.meshjava.core.ContentId.ofBytes(line);
                }
              },
              log);
      // With no steward named and no grant decided, the checkpoints name it (their signatures were
      // just checked under its log key): a snapshot or header of another steward is refused as the
      // start refuses it, rather than checked as its own steward's and passed.
      Optional<DidKey> shown = holder.or(log::origin);
      String otherByCheckpoint =
          snap.isPresent() && holder.isEmpty() && shown.isPresent()
              ? otherSteward(snap.get(), shown.get(), "the journal's checkpoints name")
              : null;
      if (otherByCheckpoint != null) {
        throw new CliException(file + ": " + otherByCheckpoint);
      }
      if (snap.isPresent()) {
        checkSnapshotPosition(
            snap.get(),
            new org.meshjava.journal.JournalPosition(s.end().count(), s.end().lastHash(), -1),
            atCovered[0]);
      }
      if (big != null) {
        org.meshjava.journal.SnapshotHeader header = big.header();
        org.meshjava.journal.JournalPosition end =
            new org.meshjava.journal.JournalPosition(s.end().count(), s.end().lastHash(), -1);
        // Checked as a start checks it, against the steward the journal shows, else its own.
        checkCovered(
            header.position(),
            () -> header.checkAgainst(shown.orElse(header.steward()), end),
            atCovered[0],
            "the latest snapshot's header");
      }
      // Not "0 records form one chain": that would read as a history checked.
      String none = noRecordsYet(s.end(), "verify");
      if (none != null) {
        report(out(), file, none + headerOnly(big));
        return 0;
      }
      report(
          out(),
          file,
          formOneChain(s.end().count())
              + "; "
              + replayed(s.replayed().result())
              + log.summary()
              + tornTail(s.end(), "will be dropped")
              + headerOnly(big));
      return 0;
    }

    /**
     * For the verify line: that the latest snapshot, too large to read, was checked by its header
     * only, as a start checks it before replaying the whole journal (SPEC.md §60.8, "Size").
     */
    private static String headerOnly(SnapshotDirectory.@Nullable TooLargeSnapshot big) {
      if (big == null) {
        return "";
      }
      return "; the latest snapshot (at record "
          + big.header().position().count()
          + ") is too large to read, so it was checked by its header only, which matches the"
          + " journal (a steward starts by replaying the whole journal): "
          + big.why();
    }

    /** A check of a snapshot, or of its header, against the journal. */
    private interface CoveredCheck {
      void run() throws SnapshotException;
    }

    /**
     * Refuses a journal that does not hold the records its latest snapshot covers, as a starting
     * steward does: shorter ({@code AHEAD_OF_JOURNAL}), or another record where the snapshot's last
     * one stands ({@code NOT_IN_JOURNAL}); {@code atCovered} is the hash of that record's line.
     */
    private void checkSnapshotPosition(
        Snapshot snap,
        org.meshjava.journal.JournalPosition end,
        org.meshjava.core.@Nullable ContentId atCovered)
        throws CliException {
      checkCovered(snap.position(), () -> snap.checkAgainst(end), atCovered, "the latest snapshot");
    }

    /**
     * Runs {@code check} of what covers {@code position} ({@code what}: a snapshot, or its header),
     * and checks that the journal's record before it hashes to {@code atCovered}.
     */
    private void checkCovered(
        org.meshjava.journal.JournalPosition position,
        CoveredCheck check,
        org.meshjava.core.@Nullable ContentId atCovered,
        String what)
        throws CliException {
      try {
        check.run();
        long covered = position.count();
        if (covered > 0 && !position.lastHash().equals(Optional.ofNullable(atCovered))) {
          throw new SnapshotException(
              SnapshotException.Reason.NOT_IN_JOURNAL,
              "the journal's record "
                  + (covered - 1)
                  + " does not hash as the snapshot says: it covers another history",
              null);
        }
      } catch (SnapshotException e) {
        Refusal refusal = Refusal.of(e.reason());
        throw new CliException(
            file
                + ": "
                + what
                + " ("
                + e.reason()
                + ", at record "
                + position.count()
                + ") "
                + refusal.verdict()
                + ": "
                + e.getMessage()
                + "; "
                + refusal.cause()
                + ", and a steward refuses to start on it",
            e);
      }
    }

    /**
     * How the verify line words a snapshot's refusal: what it found and what likely caused it, per
     * reason. A format or steward mismatch is not a journal cut or replaced, and saying so sent the
     * operator looking at the wrong file.
     *
     * @param verdict what is wrong, after the snapshot is named
     * @param cause what usually leads there
     */
    private record Refusal(String verdict, String cause) {
      static Refusal of(SnapshotException.Reason reason) {
        return switch (reason) {
          case AHEAD_OF_JOURNAL ->
              new Refusal(
                  "covers more than the journal holds",
                  "records were cut from the journal's end, or the journal was replaced by an"
                      + " older copy");
          case NOT_IN_JOURNAL ->
              new Refusal(
                  "does not match the journal",
                  "the journal was replaced or rewritten: it holds another history where the"
                      + " snapshot's records stood");
          case UNSUPPORTED_VERSION ->
              new Refusal(
                  "is in a format this version does not read",
                  "it was written by another version of mesh, or altered; check it with the"
                      + " version that wrote it, or remove it to replay the whole journal");
          case OTHER_STEWARD ->
              new Refusal(
                  "is another steward's",
                  "snapshots of two stewards were mixed up (a snapshot folder shared or copied),"
                      + " or --steward or --key names another steward than the journal's");
          default ->
              new Refusal(
                  "is refused",
                  "it was altered, or is not a snapshot; remove it to replay the whole journal");
        };
      }
    }

    /**
     * Why the latest snapshot {@code snap} is refused when it is signed by a steward other than
     * {@code journals}, whom {@code shownBy} (e.g. "the journal's grants name") shows to be the
     * journal's, as a starting steward refuses it ({@code OTHER_STEWARD}); null when it is that
     * steward's. Replaying the journal as the snapshot's steward would otherwise fail on a record,
     * naming a refusal that is not the cause.
     */
    private static @Nullable String otherSteward(Snapshot snap, DidKey journals, String shownBy) {
      if (snap.steward().equals(journals)) {
        return null;
      }
      return "the latest snapshot ("
          + SnapshotException.Reason.OTHER_STEWARD
          + ") is steward "
          + snap.steward()
          + "'s, but "
          + shownBy
          + " "
          + journals
          + "; it is another steward's snapshot, and a steward refuses to start on it";
    }

    /** How the verify line says that {@code n} records form one chain and replay. */
    private static String formOneChain(long n) {
      return Counted.of(n, "record") + (n == 1 ? " forms" : " form") + " one chain and replay";
    }

    /** What a replay found, for the verify line: decisions, receipts, unresolved, revocations. */
    private static String replayed(JournalReplay.Result r) {
      return Counted.of(r.authorisations(), "grant decision")
          + ", "
          + Counted.of(r.receiptsRecorded(), "receipt")
          + ", "
          + r.unresolved().size()
          + " unresolved, "
          + Counted.of(r.revocations(), "revocation")
          + r.suspension().map(x -> "; grants are suspended (" + x + ")").orElse("");
    }

    /** The steward a checkpoint names as its origin (its did:key). */
    static DidKey originOf(JournalEntry.Checkpoint c, JournalRecord r) throws JournalException {
      try {
        return DidKey.parse(Checkpoint.parse(c.note().text()).origin());
      } catch (LogException | DidKeyException e) {
        throw new JournalException(
            JournalException.Reason.REPLAY_REFUSED,
            r.seq(),
            "records a checkpoint that names no steward: " + e.getMessage(),
            null);
      }
    }

    private Optional<DidKey> holder(Optional<Snapshot> snap, Path path)
        throws CliException, JournalException {
      Optional<DidKey> named = namedSteward();
      if (named.isPresent()) {
        return named;
      }
      if (snap.isPresent()) {
        return Optional.of(snap.get().steward());
      }
      return firstNamedSteward(
          sink ->
              FileJournal.scan(
                  path,
                  org.meshjava.journal.JournalPosition.GENESIS,
                  new java.util.HashMap<>(),
                  sink));
    }

    /**
     * The steward that the first {@code Checkpoint} record of the live file {@code path} (whose
     * first record is {@code first}) names as its origin, its seal checked under that steward's
     * key; empty if the live file holds no checkpoint. Only checkpoint lines are decoded: they name
     * no grant chain, so no record before the live file is needed to read them.
     */
    private static Optional<DidKey> liveFileCheckpointOrigin(Path path, long first)
        throws JournalException, CliException {
      try {
        // As every reader of a live file: on a journal I/O thread, through the holder's channel
        // where this process holds the journal (an embedder running this command, a test). A
        // descriptor of its own, closed here, would let the holder's OS lock go (POSIX record
        // locks are the process's, released by any close), and an interrupt of the caller's thread
        // during a read would close it just the same (see JournalIo).
        return JournalIo.call(
            () -> {
              try {
                Optional<Optional<DidKey>> held =
                    HeldJournals.read(
                        path,
                        HeldJournals.identity(path.toRealPath()),
                        ch -> checkpointOrigin(ch, first, path));
                if (held.isPresent()) {
                  return held.get();
                }
                // Closed keeping locks: a journal held here swapped in under the name since.
                try (HeldJournals.ReadChannel read = LockHolder.openToRead(path)) {
                  return checkpointOrigin(read.channel(), first, path);
                }
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
      } catch (UncheckedIOException e) {
        IOException cause = java.util.Objects.requireNonNull(e.getCause());
        throw new CliException(path + ": cannot read: " + cause.getMessage(), cause);
      }
    }

    /**
     * {@link #liveFileCheckpointOrigin} of the live file on {@code ch}, read with positional reads
     * only (the channel may be a holder's: its position and lock are left alone).
     */
    private static Optional<DidKey> checkpointOrigin(FileChannel ch, long first, Path path)
        throws IOException, JournalException {
      RecordCodec codec = new RecordCodec();
      LineReader lines = new LineReader(ch, 0, ch.size());
      long seq = first;
      for (byte[] line = lines.next(); line != null; line = lines.next(), seq++) {
        if (line.length == 0) {
          // Counted as a record, it put every later record number in a message one too high;
          // no append writes one, so it is refused here in the words every reader uses.
          throw org.meshjava.journal.internal.EmptyLine.refused(path, lines.offset() - 1, seq - 1);
        }
        // Canonical record lines name their type in these words; only those lines are decoded.
        if (!new String(line, java.nio.charset.StandardCharsets.UTF_8)
            .contains("\"type\":\"Checkpoint\"")) {
          continue;
        }
        JournalRecord r = codec.decode(line, seq);
        if (r.entry() instanceof JournalEntry.Checkpoint c) {
          DidKey origin = originOf(c, r);
          LogReplay.checkSeal(r, c, Checkpoint.logKey(origin).key());
          return Optional.of(origin);
        }
      }
      return Optional.empty();
    }

    /** Whether the snapshot equals the replay at its position; a difference fails the verify. */
    private static boolean checkSnapshot(Snapshot snap, DidKey h, ReplayState state)
        throws JournalException {
      // Compared as a start restores it, not as stored: a snapshot an earlier build wrote still
      // holds every chain, and loading it drops the ones its ledger's horizon has passed, as the
      // replay here has (SPEC.md 60.8, "chains"). Compared as stored, every such snapshot fails.
      SnapshotState restored;
      try {
        restored = ReplayState.restore(snap.state(), snap.gate(Revocations.none())).capture(-1);
      } catch (IllegalArgumentException e) {
        throw new JournalException(
            JournalException.Reason.REPLAY_REFUSED,
            "the snapshot at record "
                + snap.position().count()
                + " cannot be restored, as a start would refuse it: "
                + e.getMessage(),
            e);
      }
      if (!java.util.Arrays.equals(
          Snapshot.canonicalBody(h, restored), Snapshot.canonicalBody(h, state.capture(-1)))) {
        throw new JournalException(
            JournalException.Reason.REPLAY_REFUSED,
            "the snapshot at record "
                + snap.position().count()
                + " does not hold the state the records before it replay to",
            null);
      }
      return true;
    }
  }

  /**
   * A failure of a subcommand that takes the journal's lock (import, archive, resume-grants), named
   * by the journal; a {@code LOCKED} refusal also says who may hold it and what to do, for the
   * journal's own message can only say "another steward".
   *
   * @param doing what the subcommand does, for "stop it before …"
   */
  static CliException refused(Object journal, JournalException e, String doing) {
    if (e.reason() != JournalException.Reason.LOCKED) {
      return new CliException(namedBy(journal, e), e);
    }
    return new CliException(
        e.getMessage()
            + " (a running mesh serve, or another mesh journal import, archive or resume-grants);"
            + " stop it before "
            + doing,
        e);
  }

  /**
   * {@code e}'s message as a subcommand reports it, named by {@code journal}: {@code FILE:
   * message}, or the message alone where it already names the journal itself (a live file older
   * than its segments, records archived without their segment), which would otherwise name it twice
   * in one line. A name the message holds only as the start of a longer one (its segment folder,
   * {@code FILE.segments/…}) is not the journal's, and the message is still prefixed.
   */
  static String namedBy(Object journal, Exception e) {
    String name = journal.toString();
    String message = String.valueOf(e.getMessage());
    for (int at = message.indexOf(name); at >= 0; at = message.indexOf(name, at + 1)) {
      int after = at + name.length();
      if (after == message.length() || !continuesAName(message.charAt(after))) {
        return message;
      }
    }
    return name + ": " + message;
  }

  // A character after which a path goes on: its segment folder, a file in it, a longer name.
  private static boolean continuesAName(char c) {
    return c == '.'
        || c == '/'
        || c == '\\'
        || c == '-'
        || c == '_'
        || Character.isLetterOrDigit(c);
  }

  /** Prints a subcommand's result, {@code journal FILE: what}, as its one line on stdout. */
  static void report(PrintWriter out, Object journal, String what) {
    out.println("journal " + journal + ": " + what);
  }

  /**
   * Where the steward keeps its snapshots, for the commands that check against the latest. Each
   * command declares its own {@code --snapshots} option, as what the default is depends on what
   * journals the command takes: {@code archive} takes only a file, so its help says nothing of a
   * database.
   */
  static final class SnapshotDirectory {
    /** The folder {@code --snapshots} named; null for the default. */
    @Nullable Path dir;

    /**
     * The largest snapshot file read, where a caller binds one: a test, which cannot write a file
     * past the real limit, lowers it for the runs it makes. Unbound, {@link Snapshot#MAX_BYTES}.
     */
    static final ScopedValue<Long> READ_LIMIT = ScopedValue.newInstance();

    /** Set by {@link #latest} when the latest snapshot is too large to read; null otherwise. */
    @Nullable TooLargeSnapshot tooLarge;

    /**
     * A latest snapshot too large to read ({@code TOO_LARGE}), known by its unsigned header only.
     *
     * @param header what the file's header says it covers
     * @param why the refusal's words, for the report
     */
    record TooLargeSnapshot(org.meshjava.journal.SnapshotHeader header, String why) {}

    /**
     * The latest snapshot of the journal at {@code file}, checked under the steward {@code named}
     * (the one --steward or --key names), or else the one it names itself. None, with {@link
     * #tooLarge} set, when the latest is too large to read.
     */
    Optional<Snapshot> latest(Path file, Optional<DidKey> named)
        throws CliException, SnapshotException {
      checkDir();
      return latest(
          dir != null ? new FileSnapshotStore(dir) : FileSnapshotStore.beside(file), named);
    }

    /**
     * As {@link #latest(Path, Optional)} for journal {@code name} in the database at {@code
     * location}: its snapshots are the rows of {@code mesh_journal_snapshot} (SPEC.md 60.7), or in
     * the folder {@code --snapshots} names, as {@code mesh serve} keeps them with {@code
     * "snapshots": {"dir": …}}.
     */
    Optional<Snapshot> latest(
        org.meshjava.journal.postgres.PostgresLocation location,
        String name,
        Optional<DidKey> named)
        throws CliException, SnapshotException {
      checkDir();
      return latest(
          dir != null
              ? new FileSnapshotStore(dir)
              : org.meshjava.journal.postgres.PostgresSnapshotStore.of(location, name),
          named);
    }

    private void checkDir() throws CliException {
      if (dir != null && !Files.isDirectory(dir)) {
        // Named and not there: checking against no snapshot would pass for checking against it.
        throw new CliException(
            "--snapshots "
                + dir
                + (Files.exists(dir) ? ": not a folder" : ": no such folder")
                + "; name the steward's snapshot folder, or leave --snapshots out");
      }
    }

    private Optional<Snapshot> latest(
        org.meshjava.journal.SnapshotStore store, Optional<DidKey> named)
        throws CliException, SnapshotException {
      // Mapped, not read: a million serves make a snapshot of about 150 MB (SPEC.md §60.8).
      Optional<java.nio.ByteBuffer> latest;
      long readLimit = READ_LIMIT.orElse(Snapshot.MAX_BYTES);
      try {
        latest = store.latestBuffer();
        if (latest.isPresent() && latest.get().remaining() > readLimit) {
          throw SnapshotException.tooLarge(
              "the latest snapshot in " + store.describe(), latest.get().remaining(), readLimit);
        }
      } catch (SnapshotException e) {
        if (e.reason() != SnapshotException.Reason.TOO_LARGE) {
          throw e;
        }
        // Too large to read is no sign of tampering: a start replays the whole journal and checks
        // it against the file's header only (SPEC.md §60.8, "Size"), and so does the verify.
        tooLarge =
            store
                .latestHeader()
                .map(h -> new TooLargeSnapshot(h, String.valueOf(e.getMessage())))
                .orElse(null);
        return Optional.empty();
      }
      if (latest.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(
          named.isPresent()
              ? Snapshot.open(latest.get(), named.get())
              : Snapshot.openAsNamed(latest.get()));
    }
  }

  /**
   * The steward {@code --steward} names (its did:key), else the one whose key file {@code --key}
   * names, else none.
   */
  static Optional<DidKey> namedSteward(@Nullable String steward, @Nullable Path key)
      throws CliException {
    if (steward != null) {
      return Optional.of(GrantFiles.did(steward));
    }
    if (key != null) {
      return Optional.of(org.meshjava.jcp.Jcp.identity(KeyFile.read(key)));
    }
    return Optional.empty();
  }

  @Command(
      name = "archive",
      description =
          "Move the records the latest snapshot covers out of the journal into FILE.segments/"
              + " (run with the steward stopped; it takes the journal's lock).")
  static final class Archive extends MeshCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "The journal file.")
    Path file;

    final SnapshotDirectory snapshots = new SnapshotDirectory();

    @Option(
        names = "--snapshots",
        paramLabel = "DIR",
        description =
            "The steward's snapshot directory, whose latest snapshot says what to move (default:"
                + " FILE.snapshots beside the journal).")
    void snapshots(Path dir) {
      snapshots.dir = dir;
    }

    @Option(
        names = "--steward",
        paramLabel = "DID",
        description =
            "The steward whose signature the snapshot must carry (default: the one it names).")
    String steward;

    @Option(
        names = "--key",
        paramLabel = "FILE",
        description = "The steward's key file: names the steward as --steward does.")
    Path key;

    @Override
    public Integer call() throws CliException {
      if (!Files.isRegularFile(file)) {
        throw JournalTarget.noJournal(file);
      }
      try {
        // The lock first: a journal a steward holds is refused as held, snapshot or none.
        long moved =
            FileJournal.archive(
                    file,
                    () -> {
                      try {
                        Optional<Snapshot> latest =
                            snapshots.latest(file, namedSteward(steward, key));
                        if (snapshots.tooLarge != null) {
                          // Refused, moving nothing (SPEC.md §60.8, "Size"): not "no snapshot".
                          throw new CliException(file + ": " + snapshots.tooLarge.why());
                        }
                        return latest;
                      } catch (SnapshotException e) {
                        throw new CliException(file + ": " + e.getMessage(), e);
                      }
                    })
                .orElseThrow(
                    () ->
                        new CliException(
                            file + ": no snapshot; only records a snapshot covers are archived"));
        report(
            out(),
            file,
            (moved == 0
                ? "nothing to archive"
                : Counted.of(moved, "record")
                    + " archived into "
                    + JournalSegments.directory(file)));
        return 0;
      } catch (JournalException e) {
        throw refused(file, e, "archiving");
      }
    }
  }

  @Command(
      name = "inspect",
      description = "Print every record, the spend per grant and the unresolved serves.")
  static final class Inspect extends Common {
    @Override
    public Integer call() throws CliException {
      PrintedRecords printed = new PrintedRecords(out());
      // It takes no lock, as verify does: a read that failed while an archive moved the files is
      // made again (SPEC.md 60.8, "Verifying"), printing only the records not printed yet.
      return journal.target() instanceof JournalTarget.File f
          ? UnlockedRead.run(f.path(), () -> inspect(printed))
          : inspect(printed);
    }

    /** Reads the journal once, printing the records {@code printed} has not. */
    private Integer inspect(PrintedRecords printed) throws CliException {
      JournalTarget.Reader reader = reader();
      PrintWriter out = out();
      Map<GrantId, GrantChain> grants = new LinkedHashMap<>();
      GrantSpendTally tally = new GrantSpendTally();
      Optional<DidKey> holder = holder(reader);
      Scanned scanned =
          scanAndReplay(
              reader,
              holder,
              (r, line) -> {
                printed.print(r, line, line(r));
                tally.accept(r);
                if (r.entry() instanceof JournalEntry.Authorised a) {
                  GrantChain ch = a.presentation().chain();
                  grants.putIfAbsent(ch.leaf().id(), ch);
                }
              },
              r -> {});
      try {
        printed.requireRead(scanned.end().count());
      } catch (JournalException e) {
        throw failed(e);
      }
      // Not "no granted serves, 0 unresolved", which would read as a history inspected.
      String none = noRecordsYet(scanned.end(), "inspect");
      if (none != null) {
        report(out, file, none);
        return 0;
      }
      Replayed replayed = scanned.replayed();
      out.println();
      // With no grant decision and no --steward/--key, the replay's holder is a throwaway
      // identity: naming it would present a random key as the journal's steward.
      out.println(
          "spend per grant"
              + holder.map(h -> " (steward " + h + ")").orElse(" (steward not named)")
              + ":");
      if (grants.isEmpty()) {
        out.println("  (no granted serves)");
      }
      List<Unresolved> unresolved = replayed.result().unresolved();
      tally.holdUnresolved(unresolved);
      for (GrantChain ch : grants.values()) {
        long budget = ch.leaf().grant().budgetUj();
        // What the leaf itself was debited (an unresolved serve held at its ceiling), not its
        // budget less what is left: that figure stops at the budget, so a grant debited past it
        // (a breach the debit records) was shown as exactly spent, and it counted a sibling's
        // spend on a shared parent as this grant's.
        // Summed from the records, not read from the replay's ledger, which forgets a link's
        // spend once decisions pass its expiry: an expired grant read "spent 0 uJ"
        // (GrantSpendTally).
        LinkSpend own = tally.spend(ch.leaf().id());
        long spent = own.committedUj();
        long left = tally.remainingUj(ch);
        // Past 2^63 − 1 the figure stops there (SPEC 30 §8): say so rather than print the top.
        out.println(
            "  grant "
                + ch.leaf().id()
                + ": spent "
                + (own.debitPastRange() ? "more than " : "")
                + spent
                + " uJ of "
                + budget
                + ", "
                + left
                + " left"
                + (own.debitPastRange()
                    ? ", overspent"
                    : spent > budget ? ", overspent by " + (spent - budget) + " uJ" : ""));
      }
      out.println("unresolved serves: " + unresolved.size());
      unresolved.forEach(u -> out.println("  " + u));
      return 0;
    }

    private static String line(JournalRecord r) {
      String head = "#" + r.seq() + " ";
      return switch (r.entry()) {
        case JournalEntry.Chain c ->
            head
                + "Chain "
                + c.id()
                + " leaf grant "
                + c.chain().leaf().id()
                + " ("
                + c.chain().links().size()
                + " links)";
        case JournalEntry.Authorised a -> {
          Presentation p = a.presentation();
          yield head
              + "Authorised request "
              + a.identified().id()
              + " backend "
              + a.backend()
              + " grant "
              + p.grantId()
              + " caller "
              + p.caller()
              + " model "
              + a.model().map(Object::toString).orElse("-")
              + " at "
              + a.decidedAt();
        }
        case JournalEntry.Debited d ->
            head
                + "Debited authorisation #"
                + d.authorised()
                + " "
                + d.debitedUj()
                + " uJ ("
                + d.energy().provenance()
                + ")"
                + d.breach().map(b -> " breach " + b).orElse("");
        case JournalEntry.Sealed s ->
            head
                + "Sealed receipt "
                + s.sequence()
                + " envelope "
                + s.envelopeId()
                + (s.authorised().isPresent() ? " granted #" + s.authorised().getAsLong() : "");
        case JournalEntry.Suspended x ->
            head
                + "Suspended grants: shown receipt "
                + x.sequence()
                + " envelope "
                + x.envelope().id()
                + ", which the journal did not hold";
        case JournalEntry.SuspendedByCheckpoint x ->
            head
                + "Suspended grants: shown checkpoint "
                + x.checkpoint().text().replace('\n', ' ').strip()
                + ", which the journal's receipts do not reproduce";
        case JournalEntry.Resumed x -> head + "Resumed grants: " + x.note();
        case JournalEntry.Revoked x ->
            head
                + "Revoked grant "
                + x.revocation().grantId()
                + " from "
                + x.revocation().from()
                + " by "
                + x.revocation().revoker();
        case JournalEntry.Checkpoint x ->
            head
                + "Checkpoint "
                + x.note().text().replace('\n', ' ').strip()
                + " ("
                + x.note().signatures().size()
                + " signatures)";
      };
    }
  }

  @Command(
      name = "adopt",
      description =
          "Take over a journal whose rows were copied into this database (a dump restored, a"
              + " cluster upgraded into a new one), which a steward refuses to open while its owner"
              + " row names the database it was written in: the row then names this one. Only once"
              + " the original will never be served again. Run with the steward stopped (it takes"
              + " the journal's lock).")
  static final class Adopt extends MeshCommand implements Callable<Integer> {
    @Mixin JournalArgument journal;

    @Option(
        names = "--steward",
        paramLabel = "DID",
        description = "The steward whose journal it is (default: the database's only one).")
    String steward;

    @Override
    public Integer call() throws CliException {
      JournalTarget target = journal.target();
      String where = JournalTarget.describe(target);
      if (!(target instanceof JournalTarget.Postgres p)) {
        throw new CliException(
            "journal "
                + where
                + ": only a journal in a database is adopted (a file carries no record of where"
                + " it was written)");
      }
      try {
        String name =
            JournalTarget.name(p.location(), namedSteward(steward, null).map(DidKey::toString));
        try (PostgresJournal adopted = PostgresJournal.adopt(p.location(), name)) {
          report(
              out(),
              where,
              "journal "
                  + name
                  + " adopted at epoch "
                  + adopted.epoch()
                  + "; its owner row now names this database");
        }
        return 0;
      } catch (JournalException e) {
        throw refused(where, e, "adopting it");
      }
    }
  }

  @Command(
      name = "resume-grants",
      description =
          "After restoring a cut journal, lift the suspension of grants: appends a"
              + " journalled Resumed record. Run with the steward stopped (it takes the journal's lock).")
  static final class ResumeGrants extends MeshCommand implements Callable<Integer> {
    @Mixin JournalArgument journal;

    @Option(
        names = "--steward",
        paramLabel = "DID",
        description = "For a database: the steward whose journal it is (default: its only one).")
    String steward;

    @Option(
        names = "--note",
        required = true,
        paramLabel = "TEXT",
        description =
            "What was done, recorded in the journal (e.g. \"restored from the 02:00 backup\").")
    String note;

    @Override
    public Integer call() throws CliException {
      JournalTarget target = journal.target();
      String file = JournalTarget.describe(target);
      if (target instanceof JournalTarget.File f && !Files.isRegularFile(f.path())) {
        throw JournalTarget.noJournal(f.path());
      }
      try (Journal journal = open(target)) {
        Optional<Suspension> inForce = GrantSuspension.inForce(journal.recovered());
        if (inForce.isEmpty()) {
          throw new CliException("journal " + file + ": grants are not suspended; nothing written");
        }
        JournalRecord r = GrantSuspension.lift(journal, note).orElseThrow();
        report(
            out(),
            file,
            "record "
                + r.seq()
                + " lifts the suspension of "
                + inForce.get().record()
                + "; grants are honoured at the"
                + " next start");
        return 0;
      } catch (JournalException e) {
        throw refused(file, e, "lifting the suspension");
      } catch (IllegalArgumentException e) {
        throw new CliException("--note: " + e.getMessage(), e);
      }
    }

    private Journal open(JournalTarget target) throws CliException, JournalException {
      if (target instanceof JournalTarget.Postgres p) {
        String name =
            JournalTarget.name(p.location(), namedSteward(steward, null).map(DidKey::toString));
        return JournalTarget.open(target, name);
      }
      return JournalTarget.open(target, "");
    }
  }

  @Command(
      name = "export",
      description =
          "Write a journal (a database's, or a file) to a new journal file, record for record;"
              + " the chain is checked as it is copied, and nothing is left at --out if it breaks"
              + " or is stopped.")
  static final class Export extends Common {
    @Option(
        names = "--out",
        required = true,
        paramLabel = "FILE",
        description = "The journal file to write; must not exist.")
    Path out;

    @Override
    public Integer call() throws CliException {
      // It takes no lock, as verify does: a copy that failed while an archive moved the files is
      // made again (SPEC.md 60.8, "Verifying"); a failed copy leaves nothing at --out.
      return journal.target() instanceof JournalTarget.File f
          ? UnlockedRead.run(f.path(), this::export)
          : export();
    }

    /** Copies the journal to --out, once. */
    private Integer export() throws CliException {
      JournalTarget.Reader reader = reader();
      if (Files.exists(out, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        throw new CliException("--out " + out + " exists; not overwritten");
      }
      refuseOwnedName(out);
      // Written beside --out under a name that says it is partial, and renamed to --out only once
      // whole and on disk: an export stopped part way (a break in the chain, a full disk, Ctrl-C
      // or SIGTERM) never leaves at --out a shorter journal that reads as complete. Each export
      // has its own, so two to one --out from one JVM never write into or remove each other's.
      Path partial = UserFile.partialOf(out);
      // What an export killed before its shutdown hook could run (SIGKILL) left beside --out.
      UserFile.removeLeftoverPartials(out);
      try {
        // A file under this very name is no write of this process's: one killed with this process
        // id left it (every run of a container's first process is PID 1, numbered from 1 again),
        // and the cleanup above keeps it, as the process it names is alive. It goes, as a key or
        // grant write's does, rather than refuse every later export to --out.
        Files.deleteIfExists(partial);
        // The copy says who spent what and when, as the journal does: its owner's alone, as the
        // journal is (SPEC 78), whatever the umask.
        Files.createFile(partial, OwnerOnly.file(partial));
      } catch (IOException e) {
        throw new CliException("cannot write " + out + ": " + UserFile.reason(e), e);
      }
      Thread removePartial = new Thread(() -> deleteQuietly(partial), "export-interrupted");
      Runtime.getRuntime().addShutdownHook(removePartial);
      JournalFile.End end;
      try {
        try (FileChannel ch = FileChannel.open(partial, StandardOpenOption.WRITE)) {
          // Checked as it is copied: a record that is malformed or does not chain stops the copy.
          OutputStream w = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 20);
          end =
              scan(
                  reader,
                  (r, line) -> {
                    try {
                      w.write(line);
                      w.write('\n');
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  });
          w.flush();
          // A file journal of no records yet is copied as one (an empty file); a database's is
          // refused, and the partial goes below.
          noRecordsYet(end, "export");
          ch.force(true);
        }
        UserFile.publishNew(partial, out);
      } catch (FileAlreadyExistsException e) {
        throw new CliException("--out " + out + " exists; not overwritten", e);
      } catch (IOException e) {
        throw new CliException("cannot write " + out + ": " + UserFile.reason(e), e);
      } catch (UncheckedIOException e) {
        throw new CliException(
            "cannot write "
                + out
                + ": "
                + UserFile.reason(java.util.Objects.requireNonNull(e.getCause())),
            e);
      } finally {
        deleteQuietly(partial);
        try {
          Runtime.getRuntime().removeShutdownHook(removePartial);
        } catch (IllegalStateException e) {
          // Shutting down already: the hook runs, and finds nothing to remove.
        }
      }
      report(
          out(),
          file,
          (end.count() == 0
                  ? "holds no records yet; an empty journal written to " + out
                  : Counted.of(end.count(), "record") + " written to " + out)
              + tornTail(end, "was not copied"));
      return 0;
    }

    /**
     * Refuses an {@code --out} that a file journal's machinery, or another write's, owns: what is
     * written there is removed or taken for theirs by the next opening, archive or write (the file
     * an archive writes before its rename, which the next opening deletes; a file in a segment or
     * snapshot folder; the archive's marker or its twin; a partial file of a write in progress).
     */
    private static void refuseOwnedName(Path out) throws CliException {
      java.util.Optional<org.meshjava.journal.JournalOwnedName> owned =
          org.meshjava.journal.JournalOwnedName.of(out);
      if (owned.isPresent()) {
        throw new CliException(
            "--out "
                + out
                + ": that name is "
                + owned.get().what()
                + " journal "
                + owned.get().journal()
                + ", whose machinery removes or replaces what is there; name another file");
      }
      java.util.Optional<Path> partialOf = UserFile.partialTarget(out);
      if (partialOf.isPresent()) {
        throw new CliException(
            "--out "
                + out
                + ": that name is a partial file of a write of "
                + partialOf.get()
                + ", removed by the next write of it once its process is gone; name another file");
      }
    }

    /** Removes the partial copy, if it is still there; nothing to report if that fails. */
    private static void deleteQuietly(Path partial) {
      try {
        Files.deleteIfExists(partial);
      } catch (IOException e) {
        // Left behind under a name that says it is partial.
      }
    }
  }

  @Command(
      name = "import",
      description =
          "Write a journal file into a database as the steward's journal, which must hold no"
              + " records yet; the chain is checked as it is copied, in one transaction that a"
              + " break rolls back. Run with the steward stopped: the file's lock is held"
              + " through the copy, so a file a steward holds is refused, and so is a steward"
              + " started on it meanwhile.")
  static final class Import extends Common {
    /**
     * Takes the lock of the journal file imported, held until the copy is committed: a steward that
     * held it would append records the copy misses, and the database journal would then continue
     * from an older end; one started during the copy is refused, as is a second import of the file.
     * The copy reads the file through the lock's own channel (a POSIX lock is the process's, and
     * closing a second descriptor of the file would release it). Opening cuts nothing and appends
     * nothing. Nothing to hold for a journal in a database.
     */
    private @Nullable FileJournal hold(JournalTarget target) throws CliException {
      if (!(target instanceof JournalTarget.File(Path path))) {
        return null;
      }
      try {
        return FileJournal.open(path);
      } catch (JournalException e) {
        if (e.reason() == JournalException.Reason.LOCKED) {
          throw refused(file, e, "importing the journal");
        }
        throw failed(e);
      }
    }

    @Option(
        names = "--to",
        required = true,
        paramLabel = "URL",
        description = "The database (postgresql://…).")
    String to;

    @Override
    public Integer call() throws CliException {
      JournalTarget.Reader reader = reader();
      FileJournal held = hold(journal.target());
      try {
        return copy(reader);
      } finally {
        if (held != null) {
          held.close();
        }
      }
    }

    /** Copies the journal {@code reader} reads into the database --to names. */
    private Integer copy(JournalTarget.Reader reader) throws CliException {
      if (!org.meshjava.journal.postgres.PostgresLocation.isPostgres(to)
          || !(JournalTarget.parse(to) instanceof JournalTarget.Postgres p)) {
        throw new CliException("--to " + to + ": a postgresql:// URL");
      }
      DidKey holder =
          holder(reader)
              .orElseThrow(
                  () ->
                      new CliException(
                          "journal "
                              + file
                              + " records no grant decision to name its steward; pass --steward"
                              + " or --key"));
      // A failure of the journal read is named by it; any other, by the database.
      List<JournalException> readFailure = new ArrayList<>(1);
      try {
        long n =
            org.meshjava.journal.postgres.PostgresJournal.importLines(
                p.location(),
                holder.toString(),
                sink -> {
                  try {
                    reader.scan(progress(), (r, line) -> sink.accept(line));
                  } catch (JournalException e) {
                    readFailure.add(e);
                    throw e;
                  }
                });
        report(
            out(),
            file,
            Counted.of(n, "record")
                + " imported into "
                + p.location()
                + " as the journal of "
                + holder);
        return 0;
      } catch (JournalException e) {
        if (readFailure.contains(e)) {
          throw failed(e);
        }
        throw new CliException(p.location() + ": " + e.getMessage(), e);
      }
    }
  }
}
