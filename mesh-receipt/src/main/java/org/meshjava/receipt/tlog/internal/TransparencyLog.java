package org.meshjava.receipt.tlog.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.ConsistencyProof;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteSignature;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * A steward's transparency log: one leaf per sealed receipt, in chain-sequence order, the latest
 * checkpoint signed with the steward's key, and the cosignatures witnesses added to it.
 * Thread-safe: every method is serialised on the log.
 *
 * <p>A leaf's entry is the 32 bytes of the receipt envelope's content id (the BLAKE3 of the
 * envelope), so leaf {@code i} hashes to SHA-256(0x00 || envelope id) and covers receipt {@code
 * firstSequence + i}. The journal records every receipt's envelope id but only a granted receipt's
 * envelope, so the id is what the tree can be rebuilt from on every restart (SPEC.md, "Transparency
 * log").
 */
public final class TransparencyLog {
  private final SigningKey key;
  private final NoteVerifierKey logKey;
  private final Set<NoteVerifierKey> witnesses;
  private final long firstSequence;
  private final MerkleTree tree;
  private @Nullable SignedNote latest;
  private @Nullable Checkpoint latestCheckpoint;

  /**
   * Creates an empty log whose first leaf will be receipt {@code firstSequence}.
   *
   * @param key the steward's signing key
   * @param firstSequence the chain sequence of the first receipt the log will hold
   * @param witnesses the witness keys whose cosignatures the log accepts
   */
  public TransparencyLog(SigningKey key, long firstSequence, Set<NoteVerifierKey> witnesses) {
    this(key, firstSequence, new MerkleTree(), witnesses);
  }

  /**
   * Creates a log over a tree already built (from a journal, say) whose leaf 0 is receipt {@code
   * firstSequence}. The log takes the tree over: nothing else may append to it. No checkpoint is
   * published yet; {@link #publish} the latest journalled one.
   *
   * @param key the steward's signing key
   * @param firstSequence the chain sequence of the tree's first leaf
   * @param tree the leaves so far
   * @param witnesses the witness keys whose cosignatures the log accepts
   */
  public TransparencyLog(
      SigningKey key, long firstSequence, MerkleTree tree, Set<NoteVerifierKey> witnesses) {
    this.tree = Objects.requireNonNull(tree, "tree");
    this.key = Objects.requireNonNull(key, "key");
    if (firstSequence < 0) {
      throw new IllegalArgumentException("a sequence is not negative");
    }
    this.logKey = Checkpoint.logKey(DidKey.of(key.verificationKey()));
    this.witnesses = Set.copyOf(witnesses);
    this.firstSequence = firstSequence;
  }

  /** Returns the note key that signs this log's checkpoints; its name is the origin. */
  public NoteVerifierKey logKey() {
    return logKey;
  }

  /** Returns the chain sequence of leaf 0. */
  public long firstSequence() {
    return firstSequence;
  }

  /**
   * Appends receipt {@code sequence}'s envelope id.
   *
   * @throws IllegalStateException if {@code sequence} is not the next one: the log holds receipts
   *     in chain order without gaps, and a caller that breaks that is a bug
   */
  public synchronized void append(long sequence, ContentId envelopeId) {
    if (sequence != firstSequence + tree.size()) {
      throw new IllegalStateException(
          "receipt " + sequence + " appended where " + (firstSequence + tree.size()) + " is due");
    }
    tree.append(envelopeId.bytes());
  }

  /** Returns the number of leaves. */
  public synchronized long size() {
    return tree.size();
  }

  /**
   * Returns the tree's levels at {@code size} leaves ({@link MerkleTree#packedLevels}), for a
   * snapshot of the receipts up to there.
   *
   * @throws IllegalArgumentException unless {@code 0 <= size <= size()}
   */
  public byte[] packedLevels(long size) {
    return tree.packedLevels(size);
  }

  /**
   * Reads the log's leaves from {@code first} on, and the subtrees over them, from {@code saved}'s
   * levels from now on ({@link MerkleTree#adoptLevels}); nothing changes unless {@code saved}
   * starts at this log's first receipt and is this log's tree at its size.
   *
   * @return whether the levels were taken
   */
  public synchronized boolean adoptLevels(long first, MerkleTree saved) {
    return first == firstSequence && tree.adoptLevels(saved);
  }

  /** The bytes the log's tree holds on the heap ({@link MerkleTree#heapBytes}). */
  public synchronized long heapBytes() {
    return tree.heapBytes();
  }

  /**
   * Returns the hash of leaf {@code index}.
   *
   * @throws LogException {@code OUT_OF_RANGE} when there is no such leaf
   */
  public synchronized TreeHash leafHashAt(long index) throws LogException {
    return tree.leafHash(index);
  }

  /**
   * Returns the inclusion proof of receipt {@code sequence} in the tree of size {@code treeSize}.
   *
   * @throws LogException {@code OUT_OF_RANGE} when the receipt or size is not in the log
   */
  public synchronized InclusionProof inclusionProof(long sequence, long treeSize)
      throws LogException {
    return tree.inclusionProof(sequence - firstSequence, treeSize);
  }

  /**
   * Returns the chain sequence of the receipt whose envelope id is {@code envelopeId}, or empty
   * when the log holds no such receipt.
   */
  public synchronized OptionalLong sequenceOf(ContentId envelopeId) {
    OptionalLong index = tree.indexOf(InclusionProof.leafHash(envelopeId));
    return index.isPresent()
        ? OptionalLong.of(firstSequence + index.getAsLong())
        : OptionalLong.empty();
  }

  /**
   * Returns the inclusion proof of the receipt whose envelope id is {@code envelopeId} in the tree
   * of size {@code treeSize}.
   *
   * @throws LogException {@code OUT_OF_RANGE} when the log holds no such receipt, or holds it only
   *     after {@code treeSize} leaves, or the size is not in the log
   */
  public synchronized InclusionProof inclusionProof(ContentId envelopeId, long treeSize)
      throws LogException {
    OptionalLong index = tree.indexOf(InclusionProof.leafHash(envelopeId));
    if (index.isEmpty()) {
      throw new LogException(
          LogException.Reason.OUT_OF_RANGE,
          "no receipt with envelope " + envelopeId + " in the log of " + tree.size());
    }
    return tree.inclusionProof(index.getAsLong(), treeSize);
  }

  /**
   * Returns the consistency proof between two sizes of the log.
   *
   * @throws LogException {@code OUT_OF_RANGE} unless {@code 0 < fromSize <= toSize <= size()}
   */
  public synchronized ConsistencyProof consistencyProof(long fromSize, long toSize)
      throws LogException {
    return tree.consistencyProof(fromSize, toSize);
  }

  /** Returns the root at {@code treeSize}. */
  public synchronized TreeHash root(long treeSize) throws LogException {
    return tree.root(treeSize);
  }

  /**
   * Signs a checkpoint of the tree as it is now, unless it is empty or the latest checkpoint
   * already has its size. Changes nothing: the caller journals the note, then {@link #publish}es
   * it, so no checkpoint is handed out that a restart could not find.
   *
   * @return the new checkpoint, or empty when there is nothing new to sign
   */
  public synchronized Optional<SignedNote> signNext() {
    long size = tree.size();
    if (size == 0 || (latestCheckpoint != null && latestCheckpoint.size() == size)) {
      return Optional.empty();
    }
    return Optional.of(new Checkpoint(logKey.name(), size, tree.root()).sign(key));
  }

  /** Returns the latest signed checkpoint with every cosignature accepted for it. */
  public synchronized Optional<SignedNote> latest() {
    return Optional.ofNullable(latest);
  }

  /** Returns the latest checkpoint's body, parsed. */
  public synchronized Optional<Checkpoint> latestCheckpoint() {
    return Optional.ofNullable(latestCheckpoint);
  }

  /**
   * Makes {@code note} the latest checkpoint: one just signed and journalled, or one read back from
   * the journal on restart. Its log signature must verify and the tree must reproduce it (the root
   * at its size); cosignatures by configured witnesses that verify are kept, others dropped.
   *
   * @throws LogException {@code CHECKPOINT_MISMATCH} when the tree's root at the checkpoint's size
   *     differs, the tree is smaller, or the latest checkpoint is larger; the note's own refusal
   *     when it is not signed by this log
   */
  public synchronized void publish(SignedNote note) throws LogException {
    Checkpoint checkpoint = Checkpoint.open(note, logKey);
    CheckpointRules.check(checkpoint, tree, latestCheckpoint == null ? 0 : latestCheckpoint.size());
    List<NoteSignature> kept = new ArrayList<>(List.of(note.signatureBy(logKey)));
    for (NoteVerifierKey w : witnesses) {
      try {
        note.verify(w);
        kept.add(note.signatureBy(w));
      } catch (LogException dropped) {
        // not cosigned by this witness, or not validly: keep only what verifies
      }
    }
    latest = new SignedNote(note.text(), kept);
    latestCheckpoint = checkpoint;
  }

  /**
   * Checks a witness's cosignature on the latest checkpoint: {@code cosigned} is that checkpoint
   * carrying a line by a configured witness key, which must verify. Changes nothing: the caller
   * journals the returned note, then {@link #publish}es it.
   *
   * @return the latest checkpoint with the cosignature added (unchanged if it already held a line
   *     by that witness: the first is kept, one line per witness)
   * @throws LogException {@code CHECKPOINT_MISMATCH} when the note is not the latest checkpoint;
   *     {@code UNSIGNED} when no configured witness signed it; {@code BAD_SIGNATURE} when a
   *     witness's line does not verify
   */
  public synchronized SignedNote cosigned(SignedNote cosigned) throws LogException {
    if (latest == null || !latest.text().equals(cosigned.text())) {
      throw new LogException(
          LogException.Reason.CHECKPOINT_MISMATCH, "not this log's latest checkpoint");
    }
    SignedNote merged = latest;
    boolean any = false;
    for (NoteVerifierKey w : witnesses) {
      NoteSignature line;
      try {
        line = cosigned.signatureBy(w);
      } catch (LogException absent) {
        continue;
      }
      cosigned.verify(w);
      any = true;
      // One line per witness, the first taken: a signer that picks its Ed25519 nonce at random
      // signs one checkpoint differently each time, and each such line would be added and
      // journalled again, the note growing per call until past SignedNote.MAX_SIGNATURES.
      if (merged.signatures().stream()
          .noneMatch(s -> s.keyHash() == line.keyHash() && s.name().equals(line.name()))) {
        merged = merged.with(line);
      }
    }
    if (!any) {
      throw new LogException(
          LogException.Reason.UNSIGNED, "no cosignature by a witness this log accepts");
    }
    return merged;
  }
}
