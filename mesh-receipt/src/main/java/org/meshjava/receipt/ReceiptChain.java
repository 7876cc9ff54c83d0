package org.meshjava.receipt;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Verifies a run of envelopes as one receipt chain (§6.3) and names the first broken link.
 * Stateless and thread-safe.
 */
public final class ReceiptChain {
  private ReceiptChain() {}

  /**
   * Verifies a whole chain from genesis: the first receipt is sequence 0.
   *
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
   * @return the verified receipts in order
   * @throws ReceiptException with the index of the first envelope that fails to open or link
   */
  public static List<SealedReceipt> verifySegment(List<Envelope> envelopes)
      throws ReceiptException {
    return verify(envelopes, false);
  }

  private static List<SealedReceipt> verify(List<Envelope> envelopes, boolean fromGenesis)
      throws ReceiptException {
    List<SealedReceipt> out = new ArrayList<>(envelopes.size());
    SealedReceipt previous = null;
    for (int i = 0; i < envelopes.size(); i++) {
      SealedReceipt current;
      try {
        current = Jcr1.open(envelopes.get(i));
      } catch (ReceiptException e) {
        throw new ReceiptException(e.reason(), i, e.detail(), e);
      }
      MeshReceipt r = current.receipt();
      if (previous == null) {
        if (fromGenesis && r.sequence() != 0) {
          throw broken(i, "a chain from genesis starts at sequence 0, not " + r.sequence());
        }
      } else {
        MeshReceipt p = previous.receipt();
        if (!r.steward().equals(p.steward())) {
          throw broken(i, "sealed by " + r.steward() + ", the chain by " + p.steward());
        }
        if (r.sequence() != p.sequence() + 1) {
          throw broken(i, "sequence " + r.sequence() + " does not follow " + p.sequence());
        }
        if (!r.prev().equals(Optional.of(previous.envelope().id()))) {
          throw broken(
              i,
              "prev "
                  + r.prev().map(Object::toString).orElse("(absent)")
                  + " is not the previous envelope's id "
                  + previous.envelope().id());
        }
      }
      out.add(current);
      previous = current;
    }
    return List.copyOf(out);
  }

  private static ReceiptException broken(int index, String detail) {
    return new ReceiptException(ReceiptException.Reason.BROKEN_CHAIN, index, detail, null);
  }
}
