package org.meshjava.jcp;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.meshjava.core.CanonicalForm;
import org.meshjava.core.ContentId;
import org.meshjava.core.Unsigned;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.identity.DidKey;

/**
 * A JCP grant, unsigned: a capability (actions on resources) together with a joule budget, held by
 * its subject and given by its issuer, valid in a window, under caveats, and naming its parent when
 * it was delegated. Sign it with {@link SignedGrant#sign}.
 *
 * <p>Times are whole seconds since the Unix epoch, because canonical CBOR has no floats and a grant
 * needs no finer resolution; the constructor refuses an {@link Instant} with a fractional second
 * rather than round it silently (the {@link Builder} truncates, and says so). The window is
 * half-open: valid from {@code notBefore} inclusive to {@code expiry} exclusive.
 *
 * <p>Canonical form (SPEC.md, JCP section): a map with text keys {@code issuer}, {@code subject}
 * (did:key text), {@code actions} (array of text), {@code resources} ({@code "*"} or array of
 * request-id hex), {@code budget_uj}, {@code not_before}, {@code expiry} (uints), {@code caveats}
 * (array of caveat maps, possibly empty) and, for a delegated grant only, {@code parent} (grant-id
 * hex). Every array is a set: ascending in the bytewise order of its items' encodings, no
 * duplicates. Immutable and thread-safe.
 *
 * @param issuer who gives the grant and signs it
 * @param subject who holds it (the steward, for a leaf)
 * @param actions permitted actions, non-empty; mesh uses {@code infer}
 * @param resources permitted requests
 * @param budgetUj the joule budget in µJ, non-negative
 * @param notBefore start of validity, whole seconds, not before the epoch
 * @param expiry end of validity (exclusive), whole seconds, after {@code notBefore}
 * @param caveats conditions of use, held in canonical order, no duplicates
 * @param parent the parent's id for a delegated grant, empty for a root
 */
public record Grant(
    DidKey issuer,
    DidKey subject,
    Set<String> actions,
    Resources resources,
    long budgetUj,
    Instant notBefore,
    Instant expiry,
    List<Caveat> caveats,
    Optional<GrantId> parent)
    implements CanonicalForm {

  /** The action mesh/1 authorises: serving one request. */
  public static final String INFER = "infer";

  private static final Pattern ACTION = Pattern.compile("[a-z][a-z0-9._:/-]{0,63}");
  private static final Comparator<byte[]> BYTEWISE = Arrays::compareUnsigned;
  private static final Set<String> KEYS =
      Set.of(
          "issuer",
          "subject",
          "actions",
          "resources",
          "budget_uj",
          "not_before",
          "expiry",
          "caveats");

  /** Validates the grant and copies its collections into canonical order. */
  public Grant {
    Objects.requireNonNull(issuer, "issuer");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(actions, "actions");
    Objects.requireNonNull(resources, "resources");
    Objects.requireNonNull(notBefore, "notBefore");
    Objects.requireNonNull(expiry, "expiry");
    Objects.requireNonNull(caveats, "caveats");
    Objects.requireNonNull(parent, "parent");
    if (actions.isEmpty()) {
      throw new IllegalArgumentException("a grant permits at least one action");
    }
    for (String a : actions) {
      if (a == null || !ACTION.matcher(a).matches()) {
        throw new IllegalArgumentException("action must match " + ACTION + ": '" + a + "'");
      }
    }
    actions = Collections.unmodifiableSortedSet(new TreeSet<>(List.copyOf(actions)));
    Unsigned.u64("budget_uj", budgetUj);
    wholeSecond("not_before", notBefore);
    wholeSecond("expiry", expiry);
    if (!expiry.isAfter(notBefore)) {
      throw new IllegalArgumentException(
          "expiry (" + expiry + ") must be after not_before (" + notBefore + ")");
    }
    caveats = canonicalCaveats(caveats);
  }

  /** Returns an empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a builder for a child of {@code parent}: issued by the parent's subject, naming the
   * parent's id, and starting from everything the parent grants (its actions, resources, budget,
   * window and caveats), so a caller only narrows what it wants narrower.
   */
  public static Builder delegatedFrom(SignedGrant parent) {
    Grant p = parent.grant();
    Builder b = new Builder();
    b.issuer = p.subject;
    b.actions.addAll(p.actions);
    b.resources = p.resources;
    b.budgetUj = p.budgetUj;
    b.notBefore = p.notBefore;
    b.expiry = p.expiry;
    b.caveats.addAll(p.caveats);
    b.parent = Optional.of(parent.id());
    return b;
  }

  /** Whether this is a root grant (it names no parent). */
  public boolean isRoot() {
    return parent.isEmpty();
  }

  /** Returns the grant's canonical CBOR encoding, the bytes its issuer signs. */
  @Override
  public byte[] encode() {
    return toCbor().encode();
  }

  CborMap toCbor() {
    List<CborValue> acts = actions.stream().<CborValue>map(CborText::new).toList();
    CborMap.Builder b =
        CborMap.builder()
            .put("issuer", issuer.value())
            .put("subject", subject.value())
            .put("actions", new CborArray(sortedByEncoding(acts)))
            .put("resources", resourcesCbor(resources))
            .put("budget_uj", budgetUj)
            .put("not_before", notBefore.getEpochSecond())
            .put("expiry", expiry.getEpochSecond())
            .put(
                "caveats",
                new CborArray(caveats.stream().<CborValue>map(Grant::caveatCbor).toList()));
    parent.ifPresent(p -> b.put("parent", new CborText(p.contentId().hex())));
    return b.build();
  }

  /** Resources' wire form. */
  static CborValue resourcesCbor(Resources resources) {
    return switch (resources) {
      case Resources.All a -> a.toCbor();
      case Resources.Only o -> o.toCbor();
    };
  }

  /** A caveat's wire form. */
  static CborMap caveatCbor(Caveat caveat) {
    return switch (caveat) {
      case ModelIn m -> m.toCbor();
      case MaxCostUj m -> m.toCbor();
      case UnknownCaveat u -> u.raw();
    };
  }

  /** Reads a grant from its canonical form; {@code path} names it in errors. */
  static Grant fromCbor(CborValue value, String path) throws MalformedGrantException {
    FieldReader r = FieldReader.of(value, path, KEYS, Set.of("parent"));
    DidKey issuer = r.didKey("issuer");
    DidKey subject = r.didKey("subject");
    List<String> actions = new ArrayList<>();
    for (CborValue v : FieldReader.canonicalSet(r.array("actions"), r.path("actions"))) {
      actions.add(FieldReader.asText(v, r.path("actions")));
    }
    Resources resources = readResources(r.value("resources"), r.path("resources"));
    long budget = r.uint("budget_uj");
    long notBefore = seconds(r, "not_before");
    long expiry = seconds(r, "expiry");
    List<Caveat> caveats = new ArrayList<>();
    List<CborValue> rawCaveats = r.array("caveats");
    if (!rawCaveats.isEmpty()) {
      FieldReader.canonicalSet(rawCaveats, r.path("caveats"));
    }
    for (int i = 0; i < rawCaveats.size(); i++) {
      caveats.add(readCaveat(rawCaveats.get(i), r.path("caveats") + "[" + i + "]"));
    }
    Optional<GrantId> parent = r.optionalContentId("parent").map(GrantId::new);
    try {
      return new Grant(
          issuer,
          subject,
          new LinkedHashSet<>(actions),
          resources,
          budget,
          Instant.ofEpochSecond(notBefore),
          Instant.ofEpochSecond(expiry),
          caveats,
          parent);
    } catch (IllegalArgumentException | DateTimeException e) {
      throw new MalformedGrantException(Malformation.VALUE, path, String.valueOf(e.getMessage()));
    }
  }

  /**
   * Reads a time field: a uint, refused naming the field when it lies past the last second an
   * {@link Instant} holds (the year 1,000,000,000), well inside the uint range SPEC.md §30 allows.
   */
  private static long seconds(FieldReader r, String key) throws MalformedGrantException {
    long s = r.uint(key);
    if (s > Instant.MAX.getEpochSecond()) {
      throw new MalformedGrantException(
          Malformation.VALUE,
          r.path(key),
          s + " seconds is past the latest time this implementation holds (" + Instant.MAX + ")");
    }
    return s;
  }

  private static Resources readResources(CborValue v, String path) throws MalformedGrantException {
    if (v instanceof CborText(String s)) {
      if (!s.equals("*")) {
        throw new MalformedGrantException(Malformation.VALUE, path, "text other than \"*\"");
      }
      return Resources.all();
    }
    if (!(v instanceof CborArray(List<CborValue> items))) {
      throw new MalformedGrantException(Malformation.SHAPE, path, "expected \"*\" or an array");
    }
    Set<ContentId> ids = new LinkedHashSet<>();
    for (CborValue item : FieldReader.canonicalSet(items, path)) {
      ids.add(FieldReader.asContentId(item, path));
    }
    return Resources.only(ids);
  }

  static Caveat readCaveat(CborValue v, String path) throws MalformedGrantException {
    if (!(v instanceof CborMap m)) {
      throw new MalformedGrantException(Malformation.SHAPE, path, "a caveat is a map");
    }
    String kind =
        FieldReader.asText(
            m.get(Caveat.KIND_KEY)
                .orElseThrow(
                    () ->
                        new MalformedGrantException(
                            Malformation.SHAPE, path + "." + Caveat.KIND_KEY, "missing")),
            path + "." + Caveat.KIND_KEY);
    switch (kind) {
      case ModelIn.KIND -> {
        FieldReader r = FieldReader.of(v, path, Set.of(Caveat.KIND_KEY, "weights"), Set.of());
        Set<ContentId> weights = new LinkedHashSet<>();
        for (CborValue item : FieldReader.canonicalSet(r.array("weights"), r.path("weights"))) {
          weights.add(FieldReader.asContentId(item, r.path("weights")));
        }
        return new ModelIn(weights);
      }
      case MaxCostUj.KIND -> {
        FieldReader r = FieldReader.of(v, path, Set.of(Caveat.KIND_KEY, "uj"), Set.of());
        return new MaxCostUj(r.uint("uj"));
      }
      default -> {
        return new UnknownCaveat(kind, m);
      }
    }
  }

  private static void wholeSecond(String field, Instant t) {
    if (t.getNano() != 0) {
      throw new IllegalArgumentException(field + " must be a whole second: " + t);
    }
    if (t.getEpochSecond() < 0) {
      throw new IllegalArgumentException(field + " must not be before the epoch: " + t);
    }
  }

  private static List<Caveat> canonicalCaveats(List<Caveat> caveats) {
    List<Caveat> copy = new ArrayList<>(caveats.size());
    for (Caveat c : caveats) {
      copy.add(Objects.requireNonNull(c, "caveat"));
    }
    copy.sort(Comparator.comparing(Caveat::encode, BYTEWISE));
    for (int i = 1; i < copy.size(); i++) {
      if (copy.get(i - 1).equals(copy.get(i))) {
        throw new IllegalArgumentException("caveat repeated: " + copy.get(i));
      }
    }
    return List.copyOf(copy);
  }

  private static List<CborValue> sortedByEncoding(List<CborValue> items) {
    List<CborValue> copy = new ArrayList<>(items);
    copy.sort(Comparator.comparing(CborValue::encode, BYTEWISE));
    return copy;
  }

  /**
   * Collects a grant's parts. Times given to it are truncated to whole seconds. Defaults: actions
   * {@code {infer}}, resources all, no caveats, no parent. Not thread-safe.
   */
  public static final class Builder {
    private DidKey issuer;
    private DidKey subject;
    private final Set<String> actions = new LinkedHashSet<>();
    private Resources resources = Resources.all();
    private long budgetUj = -1;
    private Instant notBefore;
    private Instant expiry;
    private final List<Caveat> caveats = new ArrayList<>();
    private Optional<GrantId> parent = Optional.empty();

    @SuppressWarnings("NullAway.Init") // required parts are checked in build()
    private Builder() {}

    /** Sets the issuer. */
    public Builder issuer(DidKey issuer) {
      this.issuer = issuer;
      return this;
    }

    /** Sets the subject (holder). */
    public Builder subject(DidKey subject) {
      this.subject = subject;
      return this;
    }

    /** Replaces the actions. */
    public Builder actions(Set<String> actions) {
      this.actions.clear();
      this.actions.addAll(actions);
      return this;
    }

    /** Sets the resources. */
    public Builder resources(Resources resources) {
      this.resources = resources;
      return this;
    }

    /** Sets the budget in µJ. */
    public Builder budgetUj(long budgetUj) {
      this.budgetUj = budgetUj;
      return this;
    }

    /** Sets the window, truncating both ends to whole seconds. */
    public Builder window(Instant notBefore, Instant expiry) {
      this.notBefore = notBefore.truncatedTo(ChronoUnit.SECONDS);
      this.expiry = expiry.truncatedTo(ChronoUnit.SECONDS);
      return this;
    }

    /** Adds a caveat. */
    public Builder caveat(Caveat caveat) {
      this.caveats.add(Objects.requireNonNull(caveat, "caveat"));
      return this;
    }

    /** Replaces the caveats. */
    public Builder caveats(List<Caveat> caveats) {
      this.caveats.clear();
      this.caveats.addAll(caveats);
      return this;
    }

    /** Sets the parent id (a delegated grant). */
    public Builder parent(GrantId parent) {
      this.parent = Optional.of(parent);
      return this;
    }

    /**
     * Returns the grant.
     *
     * @throws IllegalArgumentException if a part is missing or invalid
     */
    public Grant build() {
      if (budgetUj < 0) {
        throw new IllegalArgumentException("budgetUj is required and non-negative");
      }
      Set<String> acts = actions.isEmpty() ? Set.of(INFER) : actions;
      return new Grant(
          issuer, subject, acts, resources, budgetUj, notBefore, expiry, caveats, parent);
    }
  }
}
