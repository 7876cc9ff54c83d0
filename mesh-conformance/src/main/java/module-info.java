/**
 * The conformance vectors of mesh/1: their generator and the runner that checks against them.
 *
 * <p>{@code org.meshjava.conformance} (the JCR-1 vectors and their runner) and {@code
 * org.meshjava.conformance.pack} (the pack's cases and groups, {@code PackRunner}, its report, and
 * {@code SubjectProcess}, the subprocess protocol another implementation answers the pack through)
 * are the API. {@code org.meshjava.conformance.pack.internal} holds how mesh-java makes and answers
 * the pack: the case generators and their fixtures, and mesh-java's own subject, which {@code mesh
 * conformance subject} runs. {@code org.meshjava.conformance.internal} ({@code TinyModel}, the
 * sharded model the commitment vector and the pack's weights cases bind) is used only inside this
 * module and exported to none. ("module" warnings are suppressed because the module it is exported
 * to is built after this one.)
 */
@SuppressWarnings("module")
module org.meshjava.conformance {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.steward;
  requires org.meshjava.engine;
  requires org.meshjava.openai;
  requires transitive com.fasterxml.jackson.databind;

  exports org.meshjava.conformance;
  exports org.meshjava.conformance.pack;
  exports org.meshjava.conformance.pack.internal to
      org.meshjava.cli;
}
