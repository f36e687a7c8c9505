package dev.ration.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.tls.ClientTlsFiles;
import dev.ration.protocol.tls.PemException;
import dev.ration.server.tls.DevCertificates.Issued;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A context prepared ahead of need (the CLI's warm-up thread) is what the next load of the same
 * files gets, once, and only while it still reflects the files; anything else is read afresh.
 */
class ClientTlsFilesPrepareTest {
  @TempDir Path dir;

  @Test
  void theNextLoadOfTheSameFilesTakesThePreparedContextOnce() throws Exception {
    Issued ca = TestCertificates.ca("Prepare CA");
    TestCertificates.write(dir, ca, "client", TestCertificates.leaf(ca, "first", 30));
    Path caFile = dir.resolve("ca.crt");
    Path cert = dir.resolve("client.crt");
    Path key = dir.resolve("client.key");

    ClientTlsFiles prepared = ClientTlsFiles.prepare(caFile, cert, key);
    ClientTlsFiles taken = ClientTlsFiles.load(caFile, cert, key);
    ClientTlsFiles fresh = ClientTlsFiles.load(caFile, cert, key);

    assertSame(prepared, taken, "the load of the same files takes the prepared context");
    assertNotSame(prepared, fresh, "each prepared context is handed out once");
    assertEquals("CN=first,O=Ration", fresh.presented().orElseThrow().getSubjectX500Principal().getName());
  }

  @Test
  void otherFilesOrFilesChangedSinceDoNotGetThePreparedContext() throws Exception {
    Issued ca = TestCertificates.ca("Prepare CA");
    TestCertificates.write(dir, ca, "client", TestCertificates.leaf(ca, "first", 30));
    Path caFile = dir.resolve("ca.crt");
    Path cert = dir.resolve("client.crt");
    Path key = dir.resolve("client.key");

    ClientTlsFiles prepared = ClientTlsFiles.prepare(caFile, cert, key);
    ClientTlsFiles trustOnly = ClientTlsFiles.load(caFile, null, null);
    assertTrue(trustOnly.presented().isEmpty(), "other paths: their own context");
    assertNotSame(prepared, trustOnly);

    // Replaced after it was prepared: the load sees the files as they are now.
    Issued second = TestCertificates.leaf(ca, "second", 30);
    DevCertificates.write(dir, "client", second, true);
    ClientTlsFiles loaded = ClientTlsFiles.load(caFile, cert, key);
    assertSame(prepared, loaded, "still the prepared context, read again");
    assertEquals("CN=second,O=Ration", loaded.presented().orElseThrow().getSubjectX500Principal().getName());

    // A preparation that failed leaves the load to read the files and name the problem.
    Files.writeString(key, "not a key");
    ClientTlsFiles.prepare(caFile, cert, key);
    PemException e = assertThrows(PemException.class, () -> ClientTlsFiles.load(caFile, cert, key));
    assertTrue(e.getMessage().contains(key.toString()), e.getMessage());
    assertSame(PemException.class, e.getClass());
  }
}
