package org.meshjava.journal.internal;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.JournalSeal;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.internal.CheckpointRules;
import org.meshjava.receipt.tlog.internal.MerkleTree;
import org.meshjava.receipt.tlog.internal.RootWindow;

/**
 * Rebuilds the transparency log's Merkle tree from a journal (SPEC.md §65) and checks every
 * journalled checkpoint against it: each {@code Sealed} record's envelope id is the next leaf, and
 * at each {@code Checkpoint} record the steward's signature must verify, the size must be no
 * smaller than the previous checkpoint's and no larger than the tree so far, and the tree's root at
 * that size must be the signed root, and the record's journal seal ({@link JournalSeal}) must
 * verify over its sequence and {@code prev}. A journal rewritten and re-hashed by someone without
 * the steward's key fails here even though its record chain is whole.
 *
 * <p>Needs only the steward's log key (derived from its did:key), so the steward at start and
 * {@code mesh journal verify} run the same check.
 */
public final class LogReplay {
  private LogReplay() {}

  /**
   * What the journal's receipts build.
   *
   * @param firstSequence the sequence of leaf 0
   * @param tree the rebuilt tree, handed over to the caller
   * @param latest the last journalled checkpoint, as recorded (with its cosignature lines)
   * @param checkpoints how many {@code Checkpoint} records were checked
   */
  public record Result(
      long firstSequence, MerkleTree tree, Optional<SignedNote> latest, int checkpoints) {
    /** Validates the parts. */
    public Result {
      Objects.requireNonNull(tree, "tree");
      Objects.requireNonNull(latest, "latest");
      if (firstSequence < 0 || checkpoints < 0) {
        throw new IllegalArgumentException("a sequence and a count are not negative");
      }
    }
  }

  /**
   * Rebuilds the tree from {@code records} and checks their checkpoints against {@code logKey}.
   *
   * @param emptyFirst the sequence of leaf 0 when the journal records no receipt
   * @throws JournalException {@code REPLAY_REFUSED} naming the record: a receipt out of sequence,
   *     or a checkpoint not signed by {@code logKey}, out of order, or not reproduced by the
   *     receipts
   */
  public static Result replay(List<JournalRecord> records, NoteVerifierKey logKey, long emptyFirst)
      throws JournalException {
    Checker checker = new Checker(emptyFirst);
    MerkleTree tree = new MerkleTree();
    for (JournalRecord r : records) {
      checker.accept(r, logKey);
      if (r.entry() instanceof JournalEntry.Sealed s) {
        tree.append(s.envelopeId().bytes());
      }
    }
    return new Result(checker.firstSequence(), tree, checker.latest(), checker.checkpoints());
  }

  /**
   * The same check over records that arrive one at a time (a journal too long to hold is streamed
   * through it), in memory that does not grow with the journal: it keeps neither the records nor
   * the tree, only the roots a later checkpoint may still sign ({@link RootWindow}: the tree's edge
   * at the latest checkpoint's size and 32 bytes for each receipt after it). Not thread-safe; one
   * per replay.
   */
  public static final class Checker {
    private final RootWindow tree = new RootWindow();
    private long first;
    private boolean sealedSeen;
    private Optional<SignedNote> latest = Optional.empty();
    private long latestSize;
    private int checked;

    /**
     * A check of a journal's records from its start.
     *
     * @param emptyFirst the sequence of leaf 0 when the journal records no receipt
     */
    public Checker(long emptyFirst) {
      this.first = emptyFirst;
    }

    /**
     * Takes the next record: a receipt becomes the next leaf; a checkpoint is checked against the
     * tree so far and against {@code logKey}, which only a checkpoint needs (a caller that learns
     * the key from the first checkpoint passes null before it).
     *
     * @throws JournalException {@code REPLAY_REFUSED} naming the record, as {@link #replay}
     * @throws NullPointerException if {@code logKey} is null at a checkpoint
     */
    public void accept(JournalRecord r, @Nullable NoteVerifierKey logKey) throws JournalException {
      switch (r.entry()) {
        case JournalEntry.Sealed s -> {
          if (!sealedSeen) {
            // Leaf 0 is the first receipt the journal records (an archived journal starts late).
            first = s.sequence();
            sealedSeen = true;
          }
          long due = first + tree.size();
          if (s.sequence() != due) {
            throw refused(r.seq(), "records receipt " + s.sequence() + " where " + due + " is due");
          }
          tree.append(s.envelopeId().bytes());
        }
        case JournalEntry.Checkpoint c -> {
          Objects.requireNonNull(logKey, "a checkpoint is checked against the steward's log key");
          Checkpoint cp;
          try {
            cp = Checkpoint.open(c.note(), logKey);
          } catch (LogException e) {
            throw refused(
                r.seq(), "records a checkpoint the steward did not sign: " + e.getMessage());
          }
          try {
            CheckpointRules.check(cp, tree.size(), latestSize, tree::root);
          } catch (LogException e) {
            // The start's own rules and words (LogKeeper), so that verify and a start agree.
            throw refused(
                r.seq(),
                "records a checkpoint the journal's receipts do not reproduce (edited or cut"
                    + " journal?): "
                    + e.getMessage());
          }
          checkSeal(r, c, logKey.key());
          latest = Optional.of(c.note());
          latestSize = cp.size();
          checked++;
          // No later checkpoint may sign a smaller size, so the roots below this one are let go.
          try {
            tree.advanceTo(latestSize);
          } catch (LogException e) {
            throw new IllegalStateException("a checked checkpoint's size is in the window", e);
          }
        }
        default -> {
          // not part of the log
        }
      }
    }

    /** The sequence of leaf 0: the first receipt taken, else the one given at the start. */
    public long firstSequence() {
      return first;
    }

    /** The last checkpoint taken, as recorded (with its cosignature lines). */
    public Optional<SignedNote> latest() {
      return latest;
    }

    /** How many {@code Checkpoint} records were checked. */
    public int checkpoints() {
      return checked;
    }

    /**
     * The bytes it holds for the checks to come: the receipts' leaf hashes after the latest
     * checkpoint and the tree's edge there ({@link RootWindow#heldBytes}). For tests of what a
     * streamed verify keeps.
     */
    public long heldBytes() {
      return tree.heldBytes();
    }
  }

  /**
   * Checks a {@code Checkpoint} record's journal seal against the place it actually holds: its
   * sequence and its {@code prev}. Every record before it is then fixed by the steward's key.
   *
   * @throws JournalException {@code REPLAY_REFUSED} naming the record if the seal does not verify
   */
  public static void checkSeal(
      JournalRecord r, JournalEntry.Checkpoint c, org.meshjava.core.crypto.VerificationKey key)
      throws JournalException {
    if (!(c.seal() instanceof JournalSeal.Signed seal) || !seal.verifies(key, r.seq(), r.prev())) {
      throw refused(
          r.seq(), "checkpoint's journal seal does not verify: records before it were changed");
    }
  }

  private static JournalException refused(long seq, String detail) {
    return new JournalException(JournalException.Reason.REPLAY_REFUSED, seq, detail, null);
  }
}
