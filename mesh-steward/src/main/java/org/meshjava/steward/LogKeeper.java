package org.meshjava.steward;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TransparencyLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the steward's transparency log (SPEC.md §65): rebuilds it from the journal at start,
 * appends each sealed receipt in chain order, and signs, journals and publishes checkpoints (every
 * {@code every} receipts, on demand, on close) and witness cosignatures. A checkpoint is journalled
 * before it is published, so none is handed out that a restart would not find and check.
 *
 * <p>Thread-safe: signing and cosigning are serialised on the keeper, so checkpoints reach the
 * journal in size order.
 */
final class LogKeeper {
  private static final Logger LOG = LoggerFactory.getLogger(LogKeeper.class);

  private final TransparencyLog log;
  private final Journal journal;
  private final int every;

  private LogKeeper(TransparencyLog log, Journal journal, int every) {
    this.log = log;
    this.journal = journal;
    this.every = every;
  }

  /**
   * Rebuilds the log from {@code records}: every {@code Sealed} record's envelope id in order, and
   * every {@code Checkpoint} record checked against the tree as it stood at that point.
   *
   * @throws JournalException {@code REPLAY_REFUSED} naming the record when a checkpoint is not
   *     reproduced (an edited, reordered or cut journal) or receipts are out of sequence
   */
  static LogKeeper rebuild(
      SigningKey key,
      List<JournalRecord> records,
      ChainHead start,
      Set<NoteVerifierKey> witnesses,
      Journal journal,
      int every)
      throws JournalException {
    long first = start.nextSequence();
    for (JournalRecord r : records) {
      if (r.entry() instanceof JournalEntry.Sealed s) {
        first = s.sequence();
        break;
      }
    }
    TransparencyLog log = new TransparencyLog(key, first, witnesses);
    for (JournalRecord r : records) {
      switch (r.entry()) {
        case JournalEntry.Sealed s -> {
          long due = log.firstSequence() + log.size();
          if (s.sequence() != due) {
            throw refused(r.seq(), "records receipt " + s.sequence() + " where " + due + " is due");
          }
          log.append(s.sequence(), s.envelopeId());
        }
        case JournalEntry.Checkpoint c -> {
          try {
            log.publish(c.note());
          } catch (LogException e) {
            throw refused(
                r.seq(),
                "records a checkpoint the journal's receipts do not reproduce (edited or cut"
                    + " journal?): " + e.getMessage());
          }
        }
        default -> {
          // not part of the log
        }
      }
    }
    return new LogKeeper(log, journal, every);
  }

  private static JournalException refused(long seq, String detail) {
    return new JournalException(JournalException.Reason.REPLAY_REFUSED, seq, detail, null);
  }

  /** Appends a receipt; called in chain order, right after its {@code Sealed} record is queued. */
  void append(long sequence, ContentId envelopeId) {
    log.append(sequence, envelopeId);
  }

  /** After a serve: signs a checkpoint when the cadence is due. A failure is logged, not thrown. */
  void afterSeal() {
    if (log.size() % every == 0) {
      try {
        checkpoint();
      } catch (ServeException e) {
        LOG.warn("checkpoint at size {} not journalled: {}", log.size(), e.getMessage());
      }
    }
  }

  /** Signs, journals and publishes a checkpoint if the log grew; returns the latest. */
  synchronized Optional<SignedNote> checkpoint() throws ServeException {
    Optional<SignedNote> next = log.signNext();
    if (next.isPresent()) {
      record(next.get());
    }
    return log.latest();
  }

  /** Verifies, journals and publishes a witness's cosignature on the latest checkpoint. */
  synchronized SignedNote cosign(SignedNote cosigned) throws LogException, ServeException {
    SignedNote merged = log.cosigned(cosigned);
    if (!merged.equals(log.latest().orElseThrow())) {
      record(merged);
    }
    return log.latest().orElseThrow();
  }

  private void record(SignedNote note) throws ServeException {
    try {
      journal.append(new JournalEntry.Checkpoint(note));
      log.publish(note);
    } catch (JournalException e) {
      throw new ServeException(
          ServeException.Reason.NOT_RECORDED,
          "the checkpoint could not be journalled, so it is not handed out: " + e.getMessage(),
          e);
    } catch (LogException e) {
      throw new IllegalStateException("a checkpoint this log just signed does not publish", e);
    }
  }

  /** On close: a last checkpoint, so the next start checks every receipt; failures logged. */
  void closing() {
    try {
      checkpoint();
    } catch (ServeException | RuntimeException e) {
      LOG.warn("closing checkpoint not journalled: {}", e.getMessage());
    }
  }

  TransparencyLog log() {
    return log;
  }
}
