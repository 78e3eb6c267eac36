// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/sig.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t pending;

static void handler(int signo)
{
	if (!pending)
		pending = signo;
}

void ap_sig_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int ap_sig_pending(void)
{
	return pending;
}

void ap_sig_reset(void)
{
	pending = 0;
}

static int sig_cancel_fn(void *arg)
{
	(void)arg;
	return ap_sig_pending();
}

const struct ap_cancel ap_sig_cancel = { .fn = sig_cancel_fn, .arg = NULL };
