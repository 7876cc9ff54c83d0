package org.meshjava.receipt;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Verifies a run of envelopes as one receipt chain (§6.3) and names the first broken link. The
 * static methods are stateless and thread-safe; a {@link Verifier} is not.
 *
 * <p>Every envelope must open ({@link Jcr1#open(Envelope)}), be sealed by the same steward as the
 * first, and follow the one before in sequence and {@code prev}. Which steward that is, the chain
 * does not say: compare the first receipt's {@code steward()} with the {@code did:key} you trust.
 */
public final class ReceiptChain {
  private ReceiptChain() {}

  /**
   * Verifies a whole chain from genesis: the first receipt is sequence 0.
   *
   * @param envelopes the chain's envelopes in order; an empty list verifies as an empty chain
   * @return the verified receipts in order
   * @throws ReceiptException with the index of the first envelope that fails to open or link
   */
  public static List<SealedReceipt> verifyFromGenesis(List<Envelope> envelopes)
      throws ReceiptException {
    return verify(envelopes, true);
  }

  /**
   * Verifies a contiguous segment of a chain that may start anywhere.
   *
   * @param envelopes the segment's envelopes in order
   * @return the verified receipts in order
   * @throws ReceiptException with the index of the first envelope that fails to open or link
   */
  public static List<SealedReceipt> verifySegment(List<Envelope> envelopes)
      throws ReceiptException {
    return verify(envelopes, false);
  }

  private static List<SealedReceipt> verify(List<Envelope> envelopes, boolean fromGenesis)
      throws ReceiptException {
    Verifier v = new Verifier(fromGenesis);
    List<SealedReceipt> out = new ArrayList<>(envelopes.size());
    for (Envelope e : envelopes) {
      out.add(v.accept(e));
    }
    return List.copyOf(out);
  }

  /**
   * Verifies a chain one envelope at a time, holding only the last receipt, for a chain too long to
   * hold whole (an auditor's file of every receipt a steward sealed). The same checks as {@link
   * #verifyFromGenesis} and {@link #verifySegment}, with the same indexes. Not thread-safe.
   */
  public static final class Verifier {
    private final boolean fromGenesis;
    private @Nullable SealedReceipt first;
    private @Nullable SealedReceipt previous;
    private int count;

    private Verifier(boolean fromGenesis) {
      this.fromGenesis = fromGenesis;
    }

    /**
     * A verifier of a whole chain: its first receipt is sequence 0.
     *
     * @return a new verifier, holding no receipt yet
     */
    public static Verifier fromGenesis() {
      return new Verifier(true);
    }

    /**
     * A verifier of a contiguous segment that may start anywhere.
     *
     * @return a new verifier, holding no receipt yet
     */
    public static Verifier segment() {
      return new Verifier(false);
    }

    /**
     * Opens {@code envelope} and checks that it links to the one before.
     *
     * @param envelope the next envelope of the chain
     * @return the verified receipt
     * @throws ReceiptException with the envelope's index (from 0) if it fails to open or link; the
     *     verifier then stays where it was
     */
    public SealedReceipt accept(Envelope envelope) throws ReceiptException {
      int i = count;
      SealedReceipt current;
      try {
        current = Jcr1.open(envelope);
      } catch (ReceiptException e) {
        throw new ReceiptException(e.reason(), i, e.detail(), e);
      }
      MeshReceipt r = current.receipt();
      SealedReceipt before = previous;
      if (before == null) {
        if (fromGenesis && r.sequence() != 0) {
          throw broken(i, "a chain from genesis starts at sequence 0, not " + r.sequence());
        }
      } else {
        MeshReceipt p = before.receipt();
        if (!r.steward().equals(p.steward())) {
          throw broken(i, "sealed by " + r.steward() + ", the chain by " + p.steward());
        }
        if (r.sequence() != p.sequence() + 1) {
          throw broken(i, "sequence " + r.sequence() + " does not follow " + p.sequence());
        }
        if (!r.prev().equals(Optional.of(before.envelope().id()))) {
          throw broken(
              i,
              "prev "
                  + r.prev().map(Object::toString).orElse("(absent)")
                  + " is not the previous envelope's id "
                  + before.envelope().id());
        }
      }
      if (first == null) {
        first = current;
      }
      previous = current;
      count++;
      return current;
    }

    /**
     * How many envelopes were verified.
     *
     * @return the count of envelopes accepted so far
     */
    public int count() {
      return count;
    }

    /**
     * The first receipt verified, if any.
     *
     * @return the first receipt accepted, or empty before any
     */
    public Optional<SealedReceipt> first() {
      return Optional.ofNullable(first);
    }

    /**
     * The last receipt verified, if any.
     *
     * @return the last receipt accepted, or empty before any
     */
    public Optional<SealedReceipt> last() {
      return Optional.ofNullable(previous);
    }
  }

  private static ReceiptException broken(int index, String detail) {
    return new ReceiptException(ReceiptException.Reason.BROKEN_CHAIN, index, detail, null);
  }
}
