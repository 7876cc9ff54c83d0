package org.meshjava.core.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.Blake3;

class ModelDirectoryTest {
  private static final String INDEX =
      """
      {"metadata": {"total_size": 12},
       "weight_map": {"a.weight": "model-00001-of-00002.safetensors",
                      "b.weight": "model-00002-of-00002.safetensors",
                      "c.weight": "model-00001-of-00002.safetensors"}}
      """;

  @TempDir Path tmp;

  private static Path write(Path dir, String name, String content) throws IOException {
    return write(dir, name, content.getBytes(StandardCharsets.UTF_8));
  }

  private static Path write(Path dir, String name, byte[] content) throws IOException {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    Files.write(p, content);
    return p;
  }

  private Path single(String name) throws IOException {
    Path d = tmp.resolve(name);
    write(d, "config.json", "{\"model_type\":\"tiny\"}");
    write(d, "model.safetensors", new byte[] {1, 2, 3, 4, 5});
    write(d, "tokenizer.json", "{}");
    return d;
  }

  private Path sharded(String name) throws IOException {
    Path d = tmp.resolve(name);
    write(d, "config.json", "{\"model_type\":\"tiny\"}");
    write(d, "model.safetensors.index.json", INDEX);
    write(d, "model-00001-of-00002.safetensors", new byte[] {1, 2, 3});
    write(d, "model-00002-of-00002.safetensors", new byte[] {4, 5, 6});
    write(d, "tokenizer.json", "{}");
    write(d, "tokenizer_config.json", "{}");
    return d;
  }

  @Test
  void digest_matchesTheEncodingWrittenOutByHand() throws Exception {
    Path d = single("m");
    // [["config.json", hex(b3(config))], ["model.safetensors", hex(b3(weights))]]
    ByteArrayOutputStream enc = new ByteArrayOutputStream();
    enc.write(0x82);
    for (String name : List.of("config.json", "model.safetensors")) {
      byte[] path = name.getBytes(StandardCharsets.UTF_8);
      byte[] hex =
          HexFormat.of()
              .formatHex(Blake3.hash(Files.readAllBytes(d.resolve(name))))
              .getBytes(StandardCharsets.US_ASCII);
      enc.write(0x82);
      enc.write(0x60 | path.length);
      enc.write(path);
      enc.write(0x78);
      enc.write(0x40);
      enc.write(hex);
    }
    WeightsDigest w = ModelDirectory.digest(d);
    assertThat(w.encode()).isEqualTo(enc.toByteArray());
    assertThat(w.digest()).isEqualTo(ContentId.ofBytes(enc.toByteArray()));
    assertThat(w.files())
        .extracting(WeightsFile::path)
        .containsExactly("config.json", "model.safetensors");
  }

  @Test
  void digest_ofShardedModel_coversConfigIndexAndEachNamedShardOnce() throws Exception {
    WeightsDigest w = ModelDirectory.digest(sharded("s"));
    assertThat(w.files())
        .extracting(WeightsFile::path)
        .containsExactly(
            "config.json",
            "model-00001-of-00002.safetensors",
            "model-00002-of-00002.safetensors",
            "model.safetensors.index.json");
  }

  @Test
  void digest_changes_whenAnyByteOfAnyCoveredFileChanges() throws Exception {
    for (Path d : List.of(single("a"), sharded("b"))) {
      ContentId before = ModelDirectory.digest(d).digest();
      for (WeightsFile f : ModelDirectory.digest(d).files()) {
        Path p = d.resolve(f.path());
        byte[] original = Files.readAllBytes(p);
        for (int i = 0; i < original.length; i++) {
          byte[] changed = original.clone();
          changed[i] ^= 1;
          Files.write(p, changed);
          // A flipped byte in the index may also make it unreadable or name a missing shard:
          // then there is no digest at all, which is as good as a different one.
          ContentId after;
          try {
            after = ModelDirectory.digest(d).digest();
          } catch (WeightsDigestException refused) {
            continue;
          }
          assertThat(after).as("%s byte %d", f.path(), i).isNotEqualTo(before);
        }
        Files.write(p, original);
      }
      assertThat(ModelDirectory.digest(d).digest()).isEqualTo(before);
    }
  }

  @Test
  void digest_ignoresTokenizerAndOtherFiles() throws Exception {
    Path d = sharded("t");
    ContentId before = ModelDirectory.digest(d).digest();
    write(d, "tokenizer.json", "{\"changed\": true}");
    write(d, "tokenizer_config.json", "{\"changed\": true}");
    write(d, "README.md", "hello");
    write(d, "model-00003-of-00002.safetensors", new byte[] {9});
    assertThat(ModelDirectory.digest(d).digest()).isEqualTo(before);
  }

  @Test
  void digest_coversFileNames_notOnlyContents() throws Exception {
    Path a = tmp.resolve("names-a");
    Path b = tmp.resolve("names-b");
    write(a, "config.json", "{}");
    write(b, "config.json", "{}");
    write(a, "model.safetensors.index.json", "{\"weight_map\": {\"x\": \"w1.safetensors\"}}");
    write(b, "model.safetensors.index.json", "{\"weight_map\": {\"x\": \"w2.safetensors\"}}");
    write(a, "w1.safetensors", new byte[] {7});
    write(b, "w2.safetensors", new byte[] {7});
    assertThat(ModelDirectory.digest(a).digest()).isNotEqualTo(ModelDirectory.digest(b).digest());
  }

  @Test
  void digest_doesNotDependOnCreationOrder() throws Exception {
    Path a = sharded("order-a");
    Path b = tmp.resolve("order-b");
    write(b, "model-00002-of-00002.safetensors", new byte[] {4, 5, 6});
    write(b, "tokenizer.json", "{}");
    write(b, "model.safetensors.index.json", INDEX);
    write(b, "model-00001-of-00002.safetensors", new byte[] {1, 2, 3});
    write(b, "config.json", "{\"model_type\":\"tiny\"}");
    assertThat(ModelDirectory.digest(b).digest()).isEqualTo(ModelDirectory.digest(a).digest());
  }

  @Test
  void weightsDigest_sortsByUtf8Bytes_whateverTheListOrder() {
    ContentId x = ContentId.ofBytes(new byte[] {1});
    // In UTF-16 order U+1F600 (a surrogate pair, 0xD83D...) sorts before U+FF21; in UTF-8 byte
    // order (F0 9F... vs EF BC...) it sorts after. The encoding uses UTF-8 byte order.
    List<WeightsFile> files =
        List.of(
            new WeightsFile("z", x),
            new WeightsFile("\uFF21", x),
            new WeightsFile("\uD83D\uDE00", x),
            new WeightsFile("a", x));
    WeightsDigest w = new WeightsDigest(files);
    assertThat(w.files())
        .extracting(WeightsFile::path)
        .containsExactly("a", "z", "\uFF21", "\uD83D\uDE00");
    assertThat(new WeightsDigest(List.of(files.get(3), files.get(2), files.get(1), files.get(0))))
        .isEqualTo(w);
  }

  @Test
  void hashing_onOneOrSeveralThreads_agreesWithBouncyCastle_andReportsProgress() throws Exception {
    Path d = tmp.resolve("big");
    write(d, "config.json", "{}");
    byte[] weights = new byte[3 * 1024 * 1024 + 17];
    new Random(7).nextBytes(weights);
    write(d, "model.safetensors", weights);
    List<long[]> reports = new java.util.ArrayList<>();
    WeightsDigest one =
        ModelDirectory.digest(
            d,
            ModelDirectory.Links.CONFINED,
            1,
            (done, total) -> reports.add(new long[] {done, total}));
    WeightsDigest several =
        ModelDirectory.digest(d, ModelDirectory.Links.CONFINED, 3, ModelDirectory.Progress.NONE);
    assertThat(one).isEqualTo(several);
    assertThat(several.files().get(1).digest()).isEqualTo(ContentId.ofBytes(weights));
    long total = weights.length + 2;
    assertThat(reports).isNotEmpty().allSatisfy(r -> assertThat(r[1]).isEqualTo(total));
    assertThat(reports.get(reports.size() - 1)[0]).isEqualTo(total);
    for (int i = 1; i < reports.size(); i++) {
      assertThat(reports.get(i)[0]).isGreaterThanOrEqualTo(reports.get(i - 1)[0]);
    }
  }

  @Test
  void progress_countsTheFilesHashedBefore_thenEndsAtTheTotal() throws Exception {
    // Path order: config.json, both shards, then the index. Each small file reports once, at its
    // size, on top of every file before it; the digest then reports the total once more.
    Path d = sharded("progress");
    long config = Files.size(d.resolve("config.json"));
    long total = config + 3 + 3 + INDEX.getBytes(StandardCharsets.UTF_8).length;
    List<List<Long>> reports = new java.util.ArrayList<>();
    ModelDirectory.digest(
        d, ModelDirectory.Links.CONFINED, 1, (done, all) -> reports.add(List.of(done, all)));
    assertThat(reports)
        .containsExactly(
            List.of(config, total),
            List.of(config + 3, total),
            List.of(config + 6, total),
            List.of(total, total),
            List.of(total, total));
  }

  @Test
  void progress_neverPassesTheTotal_whenAFileGrewAfterItWasSized() throws Exception {
    Path d = single("grows");
    Path weights = d.resolve("model.safetensors");
    long total = Files.size(d.resolve("config.json")) + Files.size(weights);
    List<List<Long>> reports = reportsRewritingAfterTheFirst(d, weights, new byte[64]);
    assertThat(reports).allSatisfy(r -> assertThat(r).isEqualTo(List.of(r.get(0), total)));
    assertThat(reports).allSatisfy(r -> assertThat(r.get(0)).isLessThanOrEqualTo(total));
    assertThat(reports.get(reports.size() - 1)).isEqualTo(List.of(total, total));
  }

  /**
   * Digests {@code d} on one thread and returns its progress reports, writing {@code content} into
   * {@code file} when the first report comes: after every file was sized, before the later ones are
   * hashed.
   */
  private static List<List<Long>> reportsRewritingAfterTheFirst(Path d, Path file, byte[] content)
      throws WeightsDigestException {
    List<List<Long>> reports = new java.util.ArrayList<>();
    ModelDirectory.digest(
        d,
        ModelDirectory.Links.CONFINED,
        1,
        (done, all) -> {
          if (reports.isEmpty()) {
            try {
              Files.write(file, content);
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          }
          reports.add(List.of(done, all));
        });
    return reports;
  }

  @Test
  void progress_endsAtTheTotal_whenAFileShrankAfterItWasSized() throws Exception {
    // A file replaced by a shorter one between the sizing and the hashing: its own reports fall
    // short of the total, and a progress display must still be told the digest finished.
    Path d = single("shrinks");
    Path weights = d.resolve("model.safetensors");
    long total = Files.size(d.resolve("config.json")) + Files.size(weights);
    List<List<Long>> reports = reportsRewritingAfterTheFirst(d, weights, new byte[] {1});
    assertThat(reports.get(reports.size() - 2).get(0)).isEqualTo(total - 4);
    assertThat(reports.get(reports.size() - 1)).isEqualTo(List.of(total, total));
  }

  @Test
  void digest_refusesNoThreads_andNamesANullArgument() throws Exception {
    Path d = single("arguments");
    ModelDirectory.Links confined = ModelDirectory.Links.CONFINED;
    ModelDirectory.Progress none = ModelDirectory.Progress.NONE;
    assertThatThrownBy(() -> ModelDirectory.digest(d, confined, 0, none))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got 0");
    // Refused before the disk is looked at: not a missing directory, the argument.
    assertThatThrownBy(() -> ModelDirectory.digest(tmp.resolve("absent"), confined, 0, none))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(ModelDirectory.digest(d, confined, 1, none)).isEqualTo(ModelDirectory.digest(d));
    // A null link policy must not pass as "not confined", which would follow every link.
    assertThatThrownBy(() -> ModelDirectory.digest(d, null, 1, none))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("links");
    assertThatThrownBy(() -> ModelDirectory.digest(null, confined, 1, none))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("dir");
    assertThatThrownBy(() -> ModelDirectory.digest(d, confined, 1, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("progress");
  }

  @Test
  void digest_ofADirectoryNamedThroughALink_isConfinedToWhereTheLinkLeads() throws Exception {
    Path d = single("real");
    Path link = Files.createSymbolicLink(tmp.resolve("via-link"), d);
    assertThat(ModelDirectory.digest(link)).isEqualTo(ModelDirectory.digest(d));
  }

  @Test
  void digest_saysWhichPartOfAMalformedIndexIsWrong() throws Exception {
    Path notObject = tmp.resolve("index-array");
    write(notObject, "config.json", "{}");
    write(notObject, "model.safetensors.index.json", "[]");
    assertThatThrownBy(() -> ModelDirectory.digest(notObject))
        .isInstanceOf(WeightsDigestException.class)
        .hasMessageContaining("the index is not a JSON object");
    Path mapArray = tmp.resolve("map-array");
    write(mapArray, "config.json", "{}");
    write(mapArray, "model.safetensors.index.json", "{\"weight_map\": [\"a.safetensors\"]}");
    assertThatThrownBy(() -> ModelDirectory.digest(mapArray))
        .isInstanceOf(WeightsDigestException.class)
        .hasMessageContaining("weight_map is not an object");
  }

  @Test
  void digest_refusesAMissingShard() throws Exception {
    Path d = sharded("missing");
    Files.delete(d.resolve("model-00002-of-00002.safetensors"));
    assertThatThrownBy(() -> ModelDirectory.digest(d))
        .isInstanceOfSatisfying(
            WeightsDigestException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(WeightsDigestException.Reason.MISSING_FILE);
              assertThat(e.path()).isEqualTo("model-00002-of-00002.safetensors");
            });
  }

  @Test
  void digest_refusesShardPathsThatEscape() throws Exception {
    for (String bad :
        List.of("../outside.safetensors", "/etc/passwd", "a/../../x", "./x", "a//b", "c:\\\\x")) {
      Path d = tmp.resolve("escape-" + Math.abs(bad.hashCode()));
      write(d, "config.json", "{}");
      write(d, "model.safetensors.index.json", "{\"weight_map\": {\"x\": \"" + bad + "\"}}");
      assertThatThrownBy(() -> ModelDirectory.digest(d))
          .as(bad)
          .isInstanceOfSatisfying(
              WeightsDigestException.class,
              e -> assertThat(e.reason()).isEqualTo(WeightsDigestException.Reason.PATH_ESCAPES));
    }
  }

  @Test
  void digest_refusesASymlinkOutside_unlessLinksAreFollowed() throws Exception {
    Path outside = write(tmp, "blobs/weights", new byte[] {1, 2});
    Path d = tmp.resolve("linked");
    write(d, "config.json", "{}");
    Files.createSymbolicLink(d.resolve("model.safetensors"), outside);
    assertThatThrownBy(() -> ModelDirectory.digest(d))
        .isInstanceOfSatisfying(
            WeightsDigestException.class,
            e -> assertThat(e.reason()).isEqualTo(WeightsDigestException.Reason.PATH_ESCAPES));
    WeightsDigest followed = ModelDirectory.digest(d, ModelDirectory.Links.FOLLOWED);
    assertThat(followed.files().get(1).digest()).isEqualTo(ContentId.ofBytes(new byte[] {1, 2}));
  }

  @Test
  void digest_refusesUnknownAmbiguousOrConfiglessLayouts() throws Exception {
    Path none = tmp.resolve("none");
    write(none, "config.json", "{}");
    write(none, "pytorch_model.bin", "x");
    expect(none, WeightsDigestException.Reason.UNKNOWN_LAYOUT);

    Path both = sharded("both");
    write(both, "model.safetensors", "x");
    expect(both, WeightsDigestException.Reason.AMBIGUOUS_LAYOUT);

    Path noConfig = single("noconfig");
    Files.delete(noConfig.resolve("config.json"));
    expect(noConfig, WeightsDigestException.Reason.NO_CONFIG);

    expect(tmp.resolve("does-not-exist"), WeightsDigestException.Reason.MISSING_FILE);
  }

  @Test
  void digest_refusesMalformedIndexes() throws Exception {
    List<String> bad =
        List.of(
            "not json",
            "[]",
            "{}",
            "{\"weight_map\": {}}",
            "{\"weight_map\": []}",
            "{\"weight_map\": {\"x\": 3}}",
            "{\"weight_map\": {\"x\": \"a.safetensors\", \"x\": \"b.safetensors\"}}",
            "{\"weight_map\": {\"x\": \"a.safetensors\"}} {}",
            "{\"weight_map\": {\"x\": \"a.safetensors\"}");
    int i = 0;
    for (String index : bad) {
      Path d = tmp.resolve("malformed-" + i++);
      write(d, "config.json", "{}");
      write(d, "a.safetensors", "x");
      write(d, "b.safetensors", "y");
      write(d, "model.safetensors.index.json", index);
      assertThatThrownBy(() -> ModelDirectory.digest(d))
          .as(index)
          .isInstanceOfSatisfying(
              WeightsDigestException.class,
              e -> assertThat(e.reason()).isEqualTo(WeightsDigestException.Reason.MALFORMED_INDEX));
    }
  }

  @Test
  void bind_pairsTheDigestWithAPrecision() throws Exception {
    WeightsDigest w = ModelDirectory.digest(single("bind"));
    assertThat(w.bind("bf16").digest()).isEqualTo(w.digest());
    assertThat(w.bind("bf16").precision()).isEqualTo("bf16");
  }

  private static void expect(Path d, WeightsDigestException.Reason reason) {
    assertThatThrownBy(() -> ModelDirectory.digest(d))
        .isInstanceOfSatisfying(
            WeightsDigestException.class, e -> assertThat(e.reason()).isEqualTo(reason));
  }

  @Test
  void digest_refusesEmptyOrOddShardNames() throws Exception {
    for (String bad : List.of("", "\\x", ":x", "a\u0001b")) {
      Path d = tmp.resolve("odd-" + Math.abs(bad.hashCode()));
      write(d, "config.json", "{}");
      write(
          d,
          "model.safetensors.index.json",
          "{\"weight_map\": {\"x\": \"" + jsonEscaped(bad) + "\"}}");
      assertThatThrownBy(() -> ModelDirectory.digest(d))
          .as(bad)
          .isInstanceOfSatisfying(
              WeightsDigestException.class,
              e -> assertThat(e.reason()).isEqualTo(WeightsDigestException.Reason.PATH_ESCAPES));
    }
  }

  private static String jsonEscaped(String s) {
    return s.replace("\\", "\\\\").replace("\u0001", "\\u0001");
  }

  @Test
  void weightsDigest_refusesAnEmptyListOrARepeatedPath() {
    ContentId x = ContentId.ofBytes(new byte[] {1});
    assertThatThrownBy(() -> new WeightsDigest(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> new WeightsDigest(List.of(new WeightsFile("a", x), new WeightsFile("a", x))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new WeightsFile("../a", x))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void modelType_readsTheTopLevelStringOnly() throws IOException {
    Path d = tmp.resolve("types");
    write(
        d,
        "config.json",
        "{\"text_config\": {\"model_type\": \"inner\"}, \"model_type\": \"llama\"}");
    assertThat(ModelDirectory.modelType(d)).contains("llama");

    write(d, "config.json", "{\"architectures\": [\"X\"], \"model_type\": 3}");
    assertThat(ModelDirectory.modelType(d)).isEmpty();

    write(d, "config.json", "{\"model_type\": \"a\", \"model_type\": \"b\"}");
    assertThatThrownBy(() -> ModelDirectory.modelType(d)).isInstanceOf(IOException.class);

    write(d, "config.json", "[\"model_type\", \"llama\"]");
    assertThatThrownBy(() -> ModelDirectory.modelType(d)).isInstanceOf(IOException.class);
  }

  @Test
  void modelType_isNoOtherStringField_andRefusesTrailingContent() throws IOException {
    Path d = tmp.resolve("other-fields");
    write(d, "config.json", "{\"torch_dtype\": \"bfloat16\", \"model_type\": \"llama\"}");
    assertThat(ModelDirectory.modelType(d)).contains("llama");
    write(d, "config.json", "{\"torch_dtype\": \"bfloat16\"}");
    assertThat(ModelDirectory.modelType(d)).isEmpty();

    write(d, "config.json", "{\"model_type\": \"llama\"} {}");
    assertThatThrownBy(() -> ModelDirectory.modelType(d))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("trailing content");
    write(d, "config.json", "[\"model_type\", \"llama\"]");
    assertThatThrownBy(() -> ModelDirectory.modelType(d))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is not a JSON object");
  }
}
