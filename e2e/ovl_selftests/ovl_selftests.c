// SPDX-License-Identifier: GPL-2.0
/*
 * The guest side of e2e_ovl_selftests: each of the tree's own overlayfs
 * selftests (tools/testing/selftests/filesystems/overlayfs/, built by the
 * host as /tests/st/<name>) run as a case: exit 0 passes, KSFT_SKIP (4)
 * skips with the program's reason, anything else fails.  Its output (the
 * kselftest TAP of its own cases) goes to the console, "# "-prefixed.
 */
#include "e2e_test.h"
#include <sys/mount.h>
#include <sys/wait.h>

#define KSFT_SKIP 4

static void run_selftest(const char *name)
{
	char path[128], line[512], last_skip[256] = "";
	int fds[2], status;
	FILE *out;
	pid_t pid;

	snprintf(path, sizeof(path), "/tests/st/%s", name);
	if (pipe(fds))
		E2E_FAIL("pipe: %s", strerrorname_np(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		E2E_FAIL("fork: %s", strerrorname_np(errno));
	if (!pid) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	out = fdopen(fds[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = 0;
		e2e_diag("%s: %s", name, line);
		if (strstr(line, "SKIP"))
			snprintf(last_skip, sizeof(last_skip), "%.250s", line);
	}
	if (out)
		fclose(out);
	if (waitpid(pid, &status, 0) < 0)
		E2E_FAIL("waitpid: %s", strerrorname_np(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP)
		E2E_SKIP("%s", last_skip[0] ? last_skip : "skipped");
	if (WIFSIGNALED(status))
		E2E_FAIL("%s killed by signal %d", name, WTERMSIG(status));
	E2E_FAIL("%s exited %d", name, WEXITSTATUS(status));
}

/* what the selftests expect to find: debugfs (automount_in_layer), a
 * writable /tmp */
static void setup(void)
{
	if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) && errno != EBUSY)
		e2e_diag("mount debugfs: %s", strerrorname_np(errno));
	if (mount("tmpfs", "/tmp", "tmpfs", 0, NULL) && errno != EBUSY)
		e2e_diag("mount /tmp: %s", strerrorname_np(errno));
}

static void t_dev_in_maps(void) { run_selftest("dev_in_maps"); }
static void t_set_layers_via_fds(void) { run_selftest("set_layers_via_fds"); }
static void t_idmapped_mounts(void) { run_selftest("idmapped_mounts"); }
static void t_automount_in_layer(void) { run_selftest("automount_in_layer"); }

static const struct e2e_test tests[] = {
	{ "dev_in_maps", t_dev_in_maps, 120 },
	{ "set_layers_via_fds", t_set_layers_via_fds, 300 },
	{ "idmapped_mounts", t_idmapped_mounts, 300 },
	{ "automount_in_layer", t_automount_in_layer, 120 },
};

int main(int argc, char **argv)
{
	return e2e_main(argc, argv, tests, E2E_COUNT(tests), setup, NULL);
}
