package org.meshjava.jcp;

import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.meshjava.core.ContentId;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;

/**
 * Cost-independent caveat (JCP §4.9 as mesh §2 cites it): the serve's model, the content address of
 * the weights the chosen backend runs, must be one of {@code weights}. A backend that names no
 * weights is inadmissible under it. Immutable.
 *
 * <p>Wire form: {@code {"caveat": "ModelIn", "weights": [hex, …]}}, ids ascending, no duplicates,
 * at least one.
 *
 * @param weights the permitted weights digests, copied and held in ascending order
 */
public record ModelIn(Set<ContentId> weights) implements Caveat {
  /** The wire kind. */
  public static final String KIND = "ModelIn";

  /** Validates and copies the set. */
  public ModelIn {
    Objects.requireNonNull(weights, "weights");
    if (weights.isEmpty()) {
      throw new IllegalArgumentException("ModelIn names at least one weights digest");
    }
    weights = Collections.unmodifiableSortedSet(new TreeSet<>(List.copyOf(weights)));
  }

  /** Returns a caveat permitting the given weights. */
  public static ModelIn of(ContentId... weights) {
    return new ModelIn(Set.of(weights));
  }

  /** Whether a serve on {@code model} satisfies this caveat; no model never does. */
  public boolean admits(Optional<ContentId> model) {
    return model.isPresent() && weights.contains(model.get());
  }

  @Override
  public String kind() {
    return KIND;
  }

  @Override
  public boolean narrows(Caveat parentCaveat) {
    return parentCaveat instanceof ModelIn p && p.weights.containsAll(weights);
  }

  CborMap toCbor() {
    List<CborValue> items = weights.stream().<CborValue>map(w -> new CborText(w.hex())).toList();
    return CborMap.builder().put(KIND_KEY, KIND).put("weights", new CborArray(items)).build();
  }
}
