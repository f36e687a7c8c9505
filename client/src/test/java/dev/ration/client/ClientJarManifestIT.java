package dev.ration.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;

/**
 * Goal: the client jar that {@code mvn package} builds names its module, so a modular service
 * can {@code requires dev.ration.client} with a name that does not change with the jar's file
 * name. Runs after {@code package} (failsafe, at {@code integration-test}) and reads the jar
 * itself: the jar plugin's configuration could be lost in a pom edit without any unit test
 * noticing.
 */
class ClientJarManifestIT {
  @Test
  void theBuiltJarHasAnAutomaticModuleName() throws Exception {
    String property = System.getProperty("ration.client.jar");
    assertNotNull(property, "ration.client.jar is not set: run through failsafe (mvn verify)");
    Path jar = Path.of(property);
    assertTrue(Files.isRegularFile(jar), "no jar at " + jar);
    try (JarFile file = new JarFile(jar.toFile())) {
      assertNotNull(file.getEntry("dev/ration/client/RationClient.class"), jar + " is not the client jar");
      Manifest manifest = file.getManifest();
      assertNotNull(manifest, jar + " has no manifest");
      assertEquals("dev.ration.client", manifest.getMainAttributes().getValue("Automatic-Module-Name"),
          "Automatic-Module-Name of " + jar);
    }
  }
}
