package org.meshjava.jcp;

import org.meshjava.core.DenialLabel;
import org.meshjava.core.Unsigned;
import org.meshjava.core.cbor.CborMap;

/**
 * Cost-dependent caveat: the metered joules of one serve must not exceed {@code uj} µJ. Checked at
 * debit, after the work (§2 phase 3); a breach is still debited and is recorded as {@link
 * DenialLabel#CAVEAT_UNSATISFIED}. Immutable.
 *
 * <p>Wire form: {@code {"caveat": "MaxCostUj", "uj": uint}}.
 *
 * @param uj the per-serve ceiling in µJ, non-negative
 */
public record MaxCostUj(long uj) implements Caveat {
  /** The wire kind. */
  public static final String KIND = "MaxCostUj";

  /** Validates the ceiling. */
  public MaxCostUj {
    Unsigned.u64("MaxCostUj", uj);
  }

  @Override
  public String kind() {
    return KIND;
  }

  @Override
  public boolean narrows(Caveat parentCaveat) {
    return parentCaveat instanceof MaxCostUj p && uj <= p.uj;
  }

  CborMap toCbor() {
    return CborMap.builder().put(KIND_KEY, KIND).put("uj", uj).build();
  }
}
