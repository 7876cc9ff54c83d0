package org.meshjava.steward;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.internal.JvmFailure;
import org.meshjava.core.internal.ThrowableWords;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.JournalSeal;
import org.meshjava.journal.MappedReadFault;
import org.meshjava.journal.ReceiptIds;
import org.meshjava.journal.internal.FailureWords;
import org.meshjava.journal.internal.LogReplay;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.ConsistencyProof;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteSignature;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TreeHash;
import org.meshjava.receipt.tlog.internal.MerkleTree;
import org.meshjava.receipt.tlog.internal.TransparencyLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the steward's transparency log (SPEC.md §65): rebuilds it from the journal at start,
 * appends each sealed receipt in chain order, and signs, journals and publishes checkpoints (every
 * {@code every} receipts, on demand, on close) and witness cosignatures. A checkpoint is journalled
 * before it is published, so none is handed out that a restart would not find and check.
 *
 * <p>It is also what the witness (§2.2) asks whether a receipt was recorded: the tree's leaf at the
 * receipt's position. With the log turned off ({@link Off}) there is no tree, and a plain index of
 * envelope ids by sequence answers instead.
 *
 * <p>Thread-safe: signing, journalling and publishing a checkpoint, and cosigning, are serialised
 * on one lock ({@link #writing}), so checkpoints reach the journal in size order and each is
 * published only once it is durable. A witness's proof does not wait on that lock while the latest
 * published checkpoint already covers its receipt: a journal slow to write one checkpoint then
 * holds up only the callers that need a newer one.
 *
 * <p>Design note: a tree restored from a snapshot, or moved onto one it saved, reads its levels in
 * place from the mapped file (SPEC.md §60.8). A file cut short under the running steward makes the
 * next read past its new end fault ({@link MappedReadFault}), in an append as in a proof, and an
 * append it cuts leaves the tree part written. So every use of the tree goes through {@link #read},
 * under the tree's own lock: the first fault marks the log {@link #unreadable} before any other
 * caller can take the lock, and from then on every answer is refused {@link
 * LogException.Reason#UNREADABLE} and every append is skipped, so nothing is ever read from a tree
 * an append was cut in. Sealing goes on: each receipt is journalled before its leaf is appended,
 * and a restart rebuilds the tree from the journal, the receipts sealed since included.
 */
sealed class LogKeeper permits LogKeeper.Off {
  private static final Logger LOG = LoggerFactory.getLogger(LogKeeper.class);

  private final @Nullable TransparencyLog log;
  private final @Nullable Journal journal;
  private final @Nullable SigningKey key;
  private final int every;

  /**
   * The highest multiple of {@code every} whose checkpoint a serve has taken on ({@link
   * #afterSeal}), so that each multiple is signed once even when concurrent serves pass it before
   * any of them looks.
   */
  private final AtomicLong cadenceClaimed;

  /**
   * Whether the last cadence checkpoint tried failed: every later seal tries again, and only the
   * first failure of a run is a WARN (and its recovery an INFO), not one line per serve.
   */
  private final AtomicBoolean cadenceFailing = new AtomicBoolean();

  /**
   * Held from signing a checkpoint (or merging a cosignature) until it is journalled and published:
   * two of them never interleave, so the journal holds them in size order.
   */
  private final ReentrantLock writing = new ReentrantLock();

  /**
   * The largest checkpoint handed to the journal, whether or not its write was answered: one whose
   * write failed may still be stored (a sync that failed after the bytes were written), and a
   * smaller checkpoint journalled after it would make a restart and {@code mesh journal verify}
   * refuse the journal. Guarded by {@link #writing}.
   */
  private long handedToJournal;

  /**
   * Why the tree can no longer be read, once a read of its mapped levels faulted; null while it
   * can. Set under the tree's lock ({@link #read}), so no reader that takes the lock after the
   * fault reads the tree.
   */
  private volatile @Nullable String unreadable;

  /**
   * Run last in each region that reads the tree's or the index's mapped file: it throws any fault
   * of such a read that compiled code held back ({@link MappedReadFault#deliverPending}; a test's
   * stand-in otherwise, {@code Steward.Builder.heldFaults}).
   */
  private final Runnable heldFaults;

  private LogKeeper(
      @Nullable TransparencyLog log,
      @Nullable Journal journal,
      @Nullable SigningKey key,
      int every,
      Runnable heldFaults) {
    this.heldFaults = Objects.requireNonNull(heldFaults, "heldFaults");
    this.log = log;
    this.journal = journal;
    this.key = key;
    this.every = every;
    this.cadenceClaimed =
        new AtomicLong(
            log == null ? 0 : log.latestCheckpoint().map(c -> c.size() / every * every).orElse(0L));
  }

  /**
   * The log turned off ({@code Steward.Builder.transparencyLog(false)}): no tree, no checkpoints,
   * and journalled checkpoints are not checked at start; the witness reads an index of envelope ids
   * by sequence.
   */
  static final class Off extends LogKeeper {
    private final SealedIndex recorded;

    Off(SealedIndex recorded) {
      this(recorded, MappedReadFault::deliverPending);
    }

    /**
     * @param heldFaults run last in each read of the index ({@code Steward.Builder.heldFaults})
     */
    Off(SealedIndex recorded, Runnable heldFaults) {
      super(null, null, null, 1, heldFaults);
      this.recorded = recorded;
    }

    @Override
    void append(long sequence, ContentId envelopeId) {
      recorded.put(sequence, envelopeId);
    }

    /**
     * As the log's {@link LogKeeper#holds}: the index reads the ids a snapshot saved in place from
     * its mapped file, and a file cut short under the running steward makes that read fault. The
     * index is not left part written by it (nothing is appended there), but no verdict can be read
     * from it, so the fault is refused {@code UNREADABLE}, said once, as the log's is.
     */
    @Override
    boolean holds(long sequence, ContentId envelopeId) throws LogException {
      super.requireReadable();
      try {
        try {
          return recorded.get(sequence).filter(envelopeId::equals).isPresent();
        } finally {
          super.heldFaults.run(); // as in read(): a fault held back is thrown here
        }
      } catch (InternalError e) {
        throw cutShort(e);
      }
    }

    /** For a fault reading the index's mapped ids: marks it unreadable, the refusal to throw. */
    private LogException cutShort(InternalError fault) {
      return super.unreadableAfter(
          "the witness's index of sealed receipts cannot be read: the snapshot file its envelope"
              + " ids are read from was cut short while the steward ran (",
          "), so it answers no witness until a restart",
          fault);
    }

    @Override
    void afterSeal() {}

    @Override
    byte[] levels(long first, long count) {
      return new byte[0];
    }

    @Override
    long levelsLength(long first, long count) {
      return 0;
    }

    /**
     * As the log's {@link LogKeeper#adopt}: the index checks the new ids against the last one it
     * holds, which it may read from the earlier snapshot's mapped file, so a file cut short there
     * is refused {@code UNREADABLE} and the index marked unreadable (compiled, the check may have
     * taken the ids from the garbage the read gave before the fault is thrown, but no look-up reads
     * the index again), not thrown as a raw {@link InternalError} out of the snapshotter's
     * read-back or the steward's close.
     */
    @Override
    boolean adopt(ReceiptIds saved, Optional<MerkleTree> tree) throws LogException {
      super.requireReadable();
      try {
        try {
          // The index's saved ids are one list, replaced whole: taking these drops the earlier.
          return recorded.adopt(saved);
        } finally {
          super.heldFaults.run(); // as in read(): a fault held back is thrown here
        }
      } catch (InternalError e) {
        throw cutShort(e);
      }
    }

    @Override
    Optional<SignedNote> checkpoint() {
      return Optional.empty();
    }

    @Override
    void closing() {}

    @Override
    Optional<WitnessAnswer.Proof> prove(long sequence) {
      return Optional.empty();
    }
  }

  /**
   * Rebuilds the log as the journal streams past, from the start or from a snapshot's receipts
   * ({@link #seed}); holds only the tree, never the records.
   */
  static final class Rebuilder {
    private final SigningKey key;
    private final Set<NoteVerifierKey> witnesses;
    private @Nullable TransparencyLog log;

    Rebuilder(SigningKey key, Set<NoteVerifierKey> witnesses) {
      this.key = key;
      this.witnesses = witnesses;
    }

    /**
     * Starts from a snapshot: its receipts, in order, and the last checkpoint it recorded, which
     * the tree they build must reproduce. The tree is the snapshot's own when it carries one
     * (restored from its levels, no hashing: the snapshot is signed by this steward's key), else
     * rebuilt from the receipt ids.
     *
     * @throws JournalException {@code REPLAY_REFUSED} if it does not
     */
    void seed(ReceiptIds receipts, Optional<MerkleTree> tree, Optional<SignedNote> checkpoint)
        throws JournalException {
      if (receipts.first() < 0) {
        if (checkpoint.isPresent()) {
          throw refusedAt(-1, "the snapshot holds a checkpoint but no receipt");
        }
        return;
      }
      TransparencyLog l;
      if (tree.isPresent()) {
        l = new TransparencyLog(key, receipts.first(), tree.get(), witnesses);
      } else {
        l = new TransparencyLog(key, receipts.first(), witnesses);
        for (long s = receipts.first(); s < receipts.first() + receipts.size(); s++) {
          l.append(s, receipts.get(s).orElseThrow());
        }
      }
      if (checkpoint.isPresent()) {
        try {
          l.publish(checkpoint.get());
        } catch (LogException e) {
          throw refusedAt(
              -1, "the snapshot's checkpoint is not reproduced by its receipts: " + e.getMessage());
        }
      }
      log = l;
    }

    /** Takes the next record. */
    void accept(JournalRecord r) throws JournalException {
      switch (r.entry()) {
        case JournalEntry.Sealed s -> {
          TransparencyLog l = log;
          if (l == null) {
            l = new TransparencyLog(key, s.sequence(), witnesses);
            log = l;
          }
          long due = l.firstSequence() + l.size();
          if (s.sequence() != due) {
            throw refusedAt(
                r.seq(), "records receipt " + s.sequence() + " where " + due + " is due");
          }
          l.append(s.sequence(), s.envelopeId());
        }
        case JournalEntry.Checkpoint c -> {
          TransparencyLog l = log;
          if (l == null) {
            throw refusedAt(r.seq(), "records a checkpoint before any receipt");
          }
          try {
            l.publish(c.note());
          } catch (LogException e) {
            if (e.reason() == LogException.Reason.UNSIGNED) {
              // The cause says which: StewardStartException.anotherIdentity() reads it, so that
              // a starter can name its own setting for the key.
              throw new JournalException(
                  JournalException.Reason.REPLAY_REFUSED, r.seq(), anotherStewards(c.note(), e), e);
            }
            throw refusedAt(
                r.seq(),
                "records a checkpoint the journal's receipts do not reproduce (edited or cut"
                    + " journal?): "
                    + e.getMessage());
          }
          LogReplay.checkSeal(r, c, key.verificationKey());
        }
        default -> {
          // not part of the log
        }
      }
    }

    /**
     * Why a checkpoint that this steward's key did not sign is refused. Most often the journal is
     * another identity's: one an ephemeral steward of an earlier process wrote (its identity ended
     * with it), or one opened with another key. Saying "edited or cut" there sent the developer
     * looking for tampering instead of at the key. The steward named is the one whose log the
     * checkpoint is of (its origin) and who signed it; the witnesses who cosigned it are no
     * steward, and naming them beside it sent the developer after a witness's key.
     */
    private String anotherStewards(SignedNote note, LogException unsigned) {
      DidKey self = DidKey.of(key.verificationKey());
      Optional<String> steward =
          origin(note)
              .filter(o -> !o.equals(Checkpoint.originOf(self)))
              .filter(o -> note.signatures().stream().map(NoteSignature::name).anyMatch(o::equals));
      // In no interface's words (a builder method, a flag, a property): each one that starts a
      // steward says how its own user gives a key.
      String advice =
          ": a journal continues the receipt chain of the key that sealed it, so start this steward"
              + " with that key (a steward given no key has a new identity in every process, and a"
              + " journal it wrote cannot be continued), or give this steward a journal of its own";
      if (steward.isPresent()) {
        return "records a checkpoint signed by "
            + steward.get()
            + ", not by this steward ("
            + self
            + ")"
            + advice;
      }
      // No other steward's checkpoint: one of this steward's log without its signature, or no
      // checkpoint of any steward's.
      return "records a checkpoint this steward ("
          + self
          + ") did not sign ("
          + unsigned.getMessage()
          + ")"
          + advice;
    }

    /** The origin line of {@code note}'s checkpoint, if its text is a checkpoint. */
    private static Optional<String> origin(SignedNote note) {
      try {
        return Optional.of(Checkpoint.parse(note.text()).origin());
      } catch (LogException e) {
        return Optional.empty();
      }
    }

    /** The keeper, with the log starting at {@code start} if no receipt was recorded. */
    LogKeeper finish(ChainHead start, Journal journal, int every) {
      return finish(start, journal, every, MappedReadFault::deliverPending);
    }

    /**
     * As {@link #finish(ChainHead, Journal, int)}, each read of the tree ending with {@code
     * heldFaults} ({@code Steward.Builder.heldFaults})
     */
    LogKeeper finish(ChainHead start, Journal journal, int every, Runnable heldFaults) {
      TransparencyLog l = log;
      if (l == null) {
        l = new TransparencyLog(key, start.nextSequence(), witnesses);
      }
      return new LogKeeper(l, journal, key, every, heldFaults);
    }
  }

  private static JournalException refusedAt(long seq, String detail) {
    return new JournalException(JournalException.Reason.REPLAY_REFUSED, seq, detail, null);
  }

  /**
   * The tree's levels over receipts {@code first .. first + count - 1}, for a snapshot of them
   * ({@link org.meshjava.journal.Snapshot#sign(SigningKey, org.meshjava.journal.SnapshotState,
   * byte[])}); empty when the log is off, starts elsewhere, or has not appended them all yet (the
   * snapshot then carries no tree).
   */
  byte[] levels(long first, long count) {
    if (levelsLength(first, count) == 0) {
      return new byte[0];
    }
    try {
      return read(t -> t.packedLevels(count));
    } catch (LogException unreadableNow) {
      // The snapshotter's own read of the same file fails it as cut short; this one only needs to
      // keep the levels out of the snapshot.
      return new byte[0];
    }
  }

  /**
   * How many bytes {@link #levels} returns for the same arguments, without packing them: the
   * snapshotter checks a snapshot fits before it packs levels that may not fit in an array.
   */
  long levelsLength(long first, long count) {
    TransparencyLog t = tree();
    if (unreadable != null || count == 0 || t.firstSequence() != first || t.size() < count) {
      return 0;
    }
    return org.meshjava.receipt.tlog.internal.MerkleTree.packedLength(count);
  }

  /**
   * Reads what this keeper holds of a snapshot just mapped back from its file from there from now
   * on, dropping the heap copies (SPEC.md §60.9): with the log on, the tree's levels over its
   * receipts ({@link TransparencyLog#adoptLevels}); with it off ({@link Off}), the witness index's
   * envelope ids. {@code saved} is this keeper's own list of the snapshot's ids (nothing else adds
   * to it); nothing changes unless they match what the keeper holds.
   *
   * <p>The snapshotter unmaps the previous snapshot it read back once nothing reads it, so this
   * says whether that holds for the keeper: true means every view the keeper read of an earlier
   * read-back is replaced by one of these (a level's base, the index's saved ids, are replaced
   * whole, and under the lock every read of them takes, so a look-up, a proof or a snapshot's
   * packing of the levels that began before has ended, and none after reads the old ones); false,
   * that nothing changed.
   *
   * @return whether the keeper now reads these, and nothing of an earlier read-back
   * @throws LogException {@code UNREADABLE} when the tree can no longer be read (nothing changed):
   *     thrown rather than answered false, so that the snapshotter says why rather than that the
   *     snapshot does not match the log
   */
  boolean adopt(ReceiptIds saved, Optional<MerkleTree> tree) throws LogException {
    if (tree.isEmpty()) {
      return false;
    }
    return read(t -> t.adoptLevels(saved.first(), tree.get()));
  }

  /**
   * Appends a receipt; called in chain order, right after its {@code Sealed} record is queued. Once
   * the tree is {@link #unreadable} nothing is appended (the receipt is journalled, and a restart
   * puts it in the tree); an append that meets the fault marks it so and returns, since the
   * receipt's record is queued by then and the serve is owed its receipt.
   */
  void append(long sequence, ContentId envelopeId) {
    try {
      read(
          t -> {
            t.append(sequence, envelopeId);
            return true;
          });
    } catch (LogException unreadableNow) {
      // Said once, where the fault marked the log.
    }
  }

  /**
   * Whether the log's leaf for receipt {@code sequence} is the one of this envelope id.
   *
   * @throws LogException {@code UNREADABLE} when the tree cannot be read, which says nothing about
   *     the receipt
   */
  boolean holds(long sequence, ContentId envelopeId) throws LogException {
    return read(
        t -> {
          long index = sequence - t.firstSequence();
          return index >= 0
              && index < t.size()
              && t.leafHashAt(index).equals(InclusionProof.leafHash(envelopeId));
        });
  }

  /** {@link TransparencyLog#inclusionProof(long, long)}, refused once the tree is unreadable. */
  InclusionProof inclusionProof(long sequence, long treeSize) throws LogException {
    log();
    return read(t -> t.inclusionProof(sequence, treeSize));
  }

  /** {@link TransparencyLog#inclusionProof(ContentId, long)}, refused once unreadable. */
  InclusionProof inclusionProof(ContentId envelopeId, long treeSize) throws LogException {
    log();
    return read(t -> t.inclusionProof(envelopeId, treeSize));
  }

  /** {@link TransparencyLog#sequenceOf}, refused once the tree is unreadable. */
  OptionalLong sequenceOf(ContentId envelopeId) throws LogException {
    log();
    return read(t -> t.sequenceOf(envelopeId));
  }

  /** {@link TransparencyLog#consistencyProof}, refused once the tree is unreadable. */
  ConsistencyProof consistencyProof(long fromSize, long toSize) throws LogException {
    log();
    return read(t -> t.consistencyProof(fromSize, toSize));
  }

  /** The tree's root at its size now; for tests that compare recoveries. */
  TreeHash root() throws LogException {
    log();
    return read(t -> t.root(t.size()));
  }

  /** One use of the tree, which may throw what the log refuses with. */
  @FunctionalInterface
  private interface TreeRead<T> {
    T apply(TransparencyLog t) throws LogException;
  }

  /**
   * Runs {@code use} on the tree under its lock, unless the tree is {@link #unreadable}; a fault of
   * a read of its mapped levels marks it so, under the same lock, and is refused as it. Any other
   * throw passes as it is.
   *
   * @throws LogException {@code UNREADABLE} when the tree cannot be read; what {@code use} throws
   */
  private <T> T read(TreeRead<T> use) throws LogException {
    TransparencyLog t = tree();
    synchronized (t) {
      requireReadable();
      try {
        try {
          return use.apply(t);
        } finally {
          // Compiled code may throw a read's fault only at a later poll, past this catch, after
          // an answer or a refusal made of the garbage the read gave: here instead, over either.
          heldFaults.run();
        }
      } catch (InternalError e) {
        throw unreadableAfter(
            "the transparency log cannot be read: the snapshot file its tree is read from was cut"
                + " short while the steward ran (",
            "), so it answers no proof, checkpoint or witness until a restart",
            e);
      }
    }
  }

  /** Refuses {@code UNREADABLE} once a read of the mapped snapshot faulted. */
  private void requireReadable() throws LogException {
    String why = unreadable;
    if (why != null) {
      throw new LogException(LogException.Reason.UNREADABLE, why);
    }
  }

  /**
   * For an {@code InternalError} out of a read of the mapped snapshot: if it is the fault of a file
   * cut short ({@link MappedReadFault}), marks the log {@link #unreadable}, says so once (the
   * callers hold the lock whose readers it refuses from now on) and returns the refusal to throw;
   * any other {@code InternalError} is thrown as it is.
   */
  private LogException unreadableAfter(String what, String refused, InternalError fault) {
    if (!MappedReadFault.in(fault)) {
      throw fault;
    }
    String cut =
        what
            + fault.getMessage()
            + refused
            + " (put the whole file back, or remove the cut one so that the restart replays the"
            + " journal); receipts are still sealed and journalled, and the restart takes them in";
    boolean first = unreadable == null;
    unreadable = cut;
    if (first) {
      LOG.error("{}", cut);
    }
    LogException e = new LogException(LogException.Reason.UNREADABLE, cut);
    e.initCause(fault);
    return e;
  }

  /**
   * What a checkpoint shown to the steward says against its log (SPEC.md §60.4): empty when the log
   * reproduces it (its size is within the log and the log's root at that size is the signed one, so
   * the log is consistent with it), else what does not hold. The log only grows while the steward
   * runs and every checkpoint is journalled before it is handed out, so a checkpoint it signed that
   * its log does not reproduce was signed over a history this journal no longer holds.
   *
   * @throws LogException when the note is no evidence about this log: not signed by its key ({@code
   *     UNSIGNED}, {@code BAD_SIGNATURE}), not a checkpoint of it ({@code MALFORMED_CHECKPOINT});
   *     {@code NOT_KEPT} when the log is turned off
   */
  Optional<String> contradiction(SignedNote shown) throws LogException {
    TransparencyLog t = log();
    Checkpoint signed = Checkpoint.open(shown, t.logKey());
    long held = t.size();
    if (signed.size() > held) {
      return Optional.of(
          "it signed a tree of " + signed.size() + " receipts but its log holds " + held);
    }
    TreeHash root = read(l -> l.root(signed.size()));
    if (!root.equals(signed.root())) {
      return Optional.of(
          "it signed root "
              + signed.root().base64()
              + " at size "
              + signed.size()
              + " but its log's root there is "
              + root.base64());
    }
    return Optional.empty();
  }

  /**
   * After a serve: signs a checkpoint when the log has passed a multiple of {@code every} that no
   * serve signed for yet. Concurrent serves append before any of them gets here, so the size one
   * reads may already be past the multiple; asking for an exact multiple skipped it (and with it
   * the cadence) whenever two seals landed together.
   *
   * <p>A failure is logged, not thrown: the serve's receipt is sealed and journalled by now, and
   * failing the serve over its checkpoint would refuse a receipt the journal holds (a resend would
   * then be served and debited again). The claim is given back, so the next serve to seal tries the
   * multiple again instead of leaving the log unsigned for a whole cadence. The first failure is
   * logged as a WARN and the first success after it as an INFO; the retries between them log at
   * DEBUG, so a journal that stays broken costs one line, not one per serve. A checkpoint refused
   * because the journal was closed (a serve that sealed as its steward closed) is no failure and is
   * not tried again: it is said once, at INFO.
   */
  void afterSeal() {
    if (unreadable != null) {
      return; // no checkpoint can be signed until a restart: said once, where it was found
    }
    long due = tree().size() / every * every;
    long claimed = cadenceClaimed.get();
    if (due > claimed && cadenceClaimed.compareAndSet(claimed, due)) {
      try {
        checkpoint();
      } catch (ServeException | LogException | RuntimeException | Error e) {
        cadenceClaimed.compareAndSet(due, claimed);
        // A journal's Error (its own assertion, a stack overflow) fails the checkpoint as its
        // unchecked exceptions do; only the JVM failing passes, the claim given back first.
        JvmFailure.passIfFailing(e);
        if (e instanceof LogException) {
          return; // the tree became unreadable: said once, where it was found
        }
        if (journalClosed(e)) {
          // A serve that sealed as its steward closed: no seal follows to try again, and the
          // journal did not fail, so "tried again after each seal" would send an operator after a
          // fault that is not there.
          LOG.info(
              "checkpoint at size {} not journalled: the journal was closed with its steward as"
                  + " this serve sealed; not tried again",
              tree().size());
          return;
        }
        if (cadenceFailing.compareAndSet(false, true)) {
          LOG.warn(
              "checkpoint at size {} not journalled, tried again after each seal (said once until"
                  + " one is): {}",
              tree().size(),
              FailureWords.of(e));
        } else {
          LOG.debug(
              "checkpoint at size {} still not journalled: {}",
              tree().size(),
              ThrowableWords.describe(e));
        }
        return;
      }
    }
  }

  /** Whether {@code e} is a checkpoint refused because the journal was closed, not failed. */
  private static boolean journalClosed(Throwable e) {
    return e instanceof ServeException refused
        && refused.getCause() instanceof JournalException j
        && j.reason() == JournalException.Reason.CLOSED;
  }

  /**
   * Signs, journals and publishes a checkpoint if the log grew; returns the latest. Whoever
   * journals a checkpoint after cadence ones failed (a manual one, a witness's, the closing one)
   * says the log is signed again, once.
   *
   * @throws LogException {@code UNREADABLE} once the tree cannot be read: a checkpoint cannot be
   *     signed, and the latest one may no longer be the log's head
   */
  Optional<SignedNote> checkpoint() throws ServeException, LogException {
    writing.lock();
    try {
      Optional<SignedNote> next = read(TransparencyLog::signNext);
      if (next.isPresent()) {
        record(next.get());
        if (cadenceFailing.compareAndSet(true, false)) {
          LOG.info(
              "checkpoint journalled again, at size {}",
              tree().latestCheckpoint().map(Checkpoint::size).orElse(0L));
        }
      }
      return tree().latest();
    } finally {
      writing.unlock();
    }
  }

  /**
   * Returns receipt {@code sequence}'s inclusion proof against the latest signed checkpoint (signed
   * first if the log grew), with that checkpoint; empty when no checkpoint covers it. Where a new
   * checkpoint cannot be journalled, the latest existing one is used. While another caller is
   * journalling a checkpoint, a receipt the latest published one covers is proven against that one
   * at once, rather than after a write that may be slow; only a receipt it does not cover waits.
   * Either way the checkpoint named is one the journal holds.
   *
   * @throws LogException {@code UNREADABLE} once the tree cannot be read
   */
  Optional<WitnessAnswer.Proof> prove(long sequence) throws LogException {
    TransparencyLog t = tree();
    if (!writing.tryLock()) {
      Optional<WitnessAnswer.Proof> published = proofAgainst(sequence, t.latest());
      if (published.isPresent()) {
        return published;
      }
      writing.lock();
    }
    try {
      Optional<SignedNote> note;
      try {
        note = checkpoint();
      } catch (LogException e) {
        throw e;
      } catch (ServeException | RuntimeException e) {
        // A journal that fails unchecked fails the new checkpoint, not the witness's answer.
        LOG.warn("no new checkpoint for the witness: {}", FailureWords.of(e));
        note = t.latest();
      }
      return proofAgainst(sequence, note);
    } finally {
      writing.unlock();
    }
  }

  /**
   * The receipt's inclusion proof in the tree {@code note} signs, with it; empty without a note or
   * when it does not cover the receipt. The size is read from the note itself, so the proof and the
   * checkpoint agree even if a newer one is published meanwhile.
   */
  private Optional<WitnessAnswer.Proof> proofAgainst(long sequence, Optional<SignedNote> note)
      throws LogException {
    if (note.isEmpty()) {
      return Optional.empty();
    }
    try {
      long size = Checkpoint.parse(note.get().text()).size();
      InclusionProof proof = read(l -> l.inclusionProof(sequence, size));
      return Optional.of(new WitnessAnswer.Proof(proof, note.get()));
    } catch (LogException notCovered) {
      if (notCovered.reason() == LogException.Reason.UNREADABLE) {
        throw notCovered;
      }
      return Optional.empty();
    }
  }

  /**
   * Verifies, journals and publishes a witness's cosignature on the latest checkpoint. After a
   * checkpoint whose write failed (it may be stored all the same), the log is first signed and
   * journalled again, so a cosignature of the older one is refused as not the latest.
   *
   * @throws LogException as {@link TransparencyLog#cosigned} refuses the note
   * @throws ServeException {@code NOT_RECORDED} when that checkpoint, or the cosignature, cannot be
   *     journalled
   */
  SignedNote cosign(SignedNote cosigned) throws LogException, ServeException {
    writing.lock();
    try {
      TransparencyLog t = log();
      // Nothing is journalled for a log that can be read no more.
      read(l -> true);
      if (handedToJournal > t.latestCheckpoint().map(Checkpoint::size).orElse(0L)) {
        // A newer checkpoint than the published one may be stored: the log is signed again first,
        // so the cosigned older one is refused as not the latest instead of journalled after it.
        checkpoint();
      }
      SignedNote merged = t.cosigned(cosigned);
      if (!merged.equals(t.latest().orElseThrow())) {
        record(merged);
      }
      return t.latest().orElseThrow();
    } finally {
      writing.unlock();
    }
  }

  private void record(SignedNote note) throws ServeException, LogException {
    try {
      handedToJournal = Math.max(handedToJournal, Checkpoint.parse(note.text()).size());
      // Through interrupts: a checkpoint queued but not yet published would be signed again.
      Objects.requireNonNull(journal, "a kept log has a journal")
          .enqueue(
              new JournalEntry.Checkpoint(
                  note, JournalSeal.by(Objects.requireNonNull(key, "a kept log has a key"))))
          .awaitUninterruptibly();
      read(
          t -> {
            t.publish(note);
            return true;
          });
    } catch (JournalException e) {
      throw new ServeException(
          ServeException.Reason.NOT_RECORDED,
          "the checkpoint could not be journalled, so it is not handed out: " + e.getMessage(),
          e);
    } catch (LogException e) {
      if (e.reason() == LogException.Reason.UNREADABLE) {
        throw e;
      }
      throw new IllegalStateException("a checkpoint this log just signed does not publish", e);
    }
  }

  /** On close: a last checkpoint, so the next start checks every receipt; failures logged. */
  void closing() {
    try {
      checkpoint();
    } catch (LogException e) {
      LOG.warn("closing checkpoint not signed: {}", e.getMessage());
    } catch (ServeException | RuntimeException e) {
      LOG.warn("closing checkpoint not journalled: {}", FailureWords.of(e));
    }
  }

  /**
   * Returns the log.
   *
   * @throws LogException {@code NOT_KEPT} when the log is turned off
   */
  TransparencyLog log() throws LogException {
    if (log == null) {
      throw new LogException(
          LogException.Reason.NOT_KEPT, "this steward was built with its transparency log off");
    }
    return log;
  }

  /** The log, for the methods {@link Off} overrides. */
  private TransparencyLog tree() {
    return Objects.requireNonNull(log, "the log is on");
  }
}
