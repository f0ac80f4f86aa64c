"""Secrets on command lines: `privacy.commands.redact_command` on planted secrets of each form,
look-alikes byte for byte, the same shapes through `redact` when a command is pasted into prose,
recovery-code lists after a lead-in line and login tokens in URL paths. The corpus test reads
tests/corpus/redaction/commands/ (its SOURCES.md says where the lines come from)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from loreline.privacy.commands import redact_command
from loreline.privacy.redact import redact

ROOT = Path(__file__).resolve().parents[1]

# (command line, the secret that must go, what must stay)
PLANTED = [
    ("rdesktop -u admin -p Qv7#rLm2x 10.0.4.12:3389", "Qv7#rLm2x", "rdesktop -u admin -p "),
    ("ldapsearch -D 'cn=admin,dc=corp' -w 'Gh5!tmRw' -H ldap://dc1 -b dc=corp", "Gh5!tmRw", "-D 'cn=admin,dc=corp'"),
    ("xfreerdp /u:ops /p:Hq2mZt9xLp /v:10.0.8.21", "Hq2mZt9xLp", "/u:ops"),
    ("setx /s srv01 /u jdoe /p Kw3vTp8n PATH C:\\bin", "Kw3vTp8n", "/u jdoe"),
    ("sshpass -p harbour ssh deploy@10.0.4.12", "harbour", "deploy@10.0.4.12"),
    ("redis-cli -h cache -a lanternfish ping", "lanternfish", "redis-cli -h cache"),
    ("7z a backup.7z -pZq81mWv3 -mhe=on data/", "Zq81mWv3", "-mhe=on"),
    ("mysqladmin ping -h db -u root -pmeadow --silent", "meadow", "--silent"),
    ("mysql -u root -p 204913", "204913", "mysql -u root -p "),
    ("pdfinfo -upw orchid42 report.pdf", "orchid42", "report.pdf"),
    ("docker login -u admin -p 18031978 registry.corp:8123", "18031978", "registry.corp:8123"),
    ("glab auth login -t Xb9qLm2RtV7wPz3KcN5d", "Xb9qLm2RtV7wPz3KcN5d", "glab auth login -t "),
    ("gcrane auth login ghcr.io -u admin --password orchid", "orchid", "ghcr.io"),
    ("kcadm.sh config credentials --server http://kc:8080 --realm master --user admin --password willow",
     "willow", "--realm master"),
    ("wget --user=bob --password=481516 https://files.corp/a.tgz", "481516", "--user=bob"),
    ("gotty -w --credential ops:Tk4mPq9z bash", "Tk4mPq9z", "--credential ops:"),
    ("secretsdump.py CORP/alice:Falcon77!@10.0.8.21", "Falcon77!", "CORP/alice:"),
    ("GetADUsers.py -all -dc-ip 10.0.0.1 CORP/mlopez:Copper1549*", "Copper1549*", "CORP/mlopez:"),
    ("rpcclient -U CORP\\jdoe%Marble#12 10.0.8.21", "Marble#12", "CORP\\jdoe%"),
    ("trdsql -driver mysql -dsn \"ops:marble@db.corp/appdb\" \"SELECT 1\"", "marble", "@db.corp/appdb"),
    ("htpasswd -b /etc/nginx/.htpasswd alice copper-copper-41", "copper-copper-41", "/etc/nginx/.htpasswd alice"),
    ("htpasswd -nbm ops Marb241orc", "Marb241orc", "htpasswd -nbm ops"),
    ("rabbitmqctl add_user mlopez 7AH4wlnwiUxkG6", "7AH4wlnwiUxkG6", "add_user mlopez"),
    ("wpa_passphrase homenet tundra-zephyr", "tundra-zephyr", "homenet"),
    ("vault login s1mpleT0kenValue9Xq", "s1mpleT0kenValue9Xq", "vault login "),
    ("pulumi config set --secret dbPassword atEJc2vPjjeJ", "atEJc2vPjjeJ", "dbPassword"),
    ("npm config set //npm.corp.dev/:_authToken nra_82ff3b514d6944a88278e51c0b7d2a94", "nra_82ff3b514d6944a88278e51c0b7d2a94",
     "//npm.corp.dev/:_authToken"),
    ("echo 'Wq3nTz8vLp' | docker login -u ci --password-stdin ghcr.io", "Wq3nTz8vLp", "--password-stdin"),
    ("yes Mead326tun | passwd", "Mead326tun", "| passwd"),
    ('gh auth login --with-token <<< "ghp_urs917Kq"', "ghp_urs917Kq", "--with-token"),
    ("kubectl create secret generic db --from-literal=password=plum", "plum", "--from-literal=password="),
    ("PGPASSWORD=horizons psql -h db -U app -c 'SELECT 1'", "horizons", "psql -h db -U app"),
    ("curl -H \"Authorization: Basic $(echo -n api:Kq8sPw2xZ | base64)\" https://api.corp", "Kq8sPw2xZ", "echo -n api:"),
    ("openssl genrsa -aes256 -passout pass:wrbjcz9229 2048", "wrbjcz9229", "-passout pass:"),
    ("choco apikey --source https://push.chocolatey.org -k lZHF5Ru0tLIeXTqCZ2pIXsrYti9w", "lZHF5Ru0tLIeXTqCZ2pIXsrYti9w",
     "choco apikey"),
    ("sh 'docker login -u admin -p yellow 35.175.142.195:8083'", "yellow", "35.175.142.195:8083"),
    # the families round 2 of the corpus generalised from the tuning material
    ("wget --user= --password=Tq8mWz3v http://files.corp/a.tgz", "Tq8mWz3v", "wget --user= --password="),
    ("oathtool --totp -w 2 --base32 KRUGKIDROVUWG2ZA", "KRUGKIDROVUWG2ZA", "--totp -w 2 --base32 "),
    ("keyctl-cli auth --client-id 7f3a -s Qw8ZkL2mNp4RtY6vBx9C", "Qw8ZkL2mNp4RtY6vBx9C", "--client-id 7f3a -s "),
    ("steamcmd +login deploybot Vq7nRt2mKx +quit", "Vq7nRt2mKx", "+login deploybot "),
    ("security unlock-keychain -p Lk4vTq9zW login.keychain", "Lk4vTq9zW", " login.keychain"),
    ("networksetup -setairportnetwork en1 Harbour-5G tidal-crane-88", "tidal-crane-88", "en1 Harbour-5G "),
    # the families round 3 generalised from rounds 1 and 2: positional secrets of known tools,
    # flags no rule knew, option lists, quoted and glued forms
    ("mysqladmin -u root -h db1 password Quartz771", "Quartz771", "mysqladmin -u root -h db1 password "),
    ("mosquitto_passwd -b -c /etc/mosquitto/passwd sensor1 Tulip4421", "Tulip4421", "/etc/mosquitto/passwd sensor1 "),
    ("net use Z: \\\\fs01\\share Ferns#882 /user:CORP\\svc /persistent:no", "Ferns#882", "/user:CORP"),
    ("net user backup Lark-2291 /add", "Lark-2291", "net user backup "),
    ("mc alias set store http://10.0.0.9:9000 ACCESS01 Wq8rTz2mLp4sVx6n", "Wq8rTz2mLp4sVx6n", "store http://10.0.0.9:9000 ACCESS01 "),
    ("mc config host add --api s3v4 store http://10.0.0.9:9000 ops harbor-42", "harbor-42", "--api s3v4 store"),
    ("plink -pw Cinder93 -batch ops@10.0.4.12 uptime", "Cinder93", "ops@10.0.4.12"),
    ("pscp -pw Cinder93 build.zip ops@10.0.4.12:/tmp/", "Cinder93", "ops@10.0.4.12:/tmp/"),
    ("sudo mount -t cifs -o username=svc,password=Reef4417,vers=3.0 //fs01/share /mnt", "Reef4417", "//fs01/share /mnt"),
    ("lftp -u deploy,Maple5523 sftp://files.corp -e 'mirror -R dist /www'", "Maple5523", "-u deploy,"),
    ("echo Kettle#55 | sudo -S systemctl restart nginx", "Kettle#55", "| sudo -S systemctl"),
    ('RUN echo "ops:Ivy4419q" | chpasswd', "Ivy4419q", "RUN echo \"ops:"),
    ("evil-winrm -i 10.0.0.5 -u admin -H 8846f7eaee8fb117ad06bdd830b7586c", "8846f7eaee8fb117ad06bdd830b7586c", "-u admin -H "),
    ("wmiexec.py -hashes aad3b435b51404eeaad3b435b51404ee:8846f7eaee8fb117ad06bdd830b7586d CORP/admin@10.0.0.5",
     "8846f7eaee8fb117ad06bdd830b7586d", "CORP/admin@10.0.0.5"),
    ("secretsdump.py admin:'Sp!ce@44'@10.0.0.5", "Sp!ce@44", "@10.0.0.5"),
    ("ngrok config add-authtoken 2Qw8ZkL2mNp4RtY6vBx9C_5kHdQ3mLp", "2Qw8ZkL2mNp4RtY6vBx9C_5kHdQ3mLp", "ngrok config"),
    ("mvn sonar:sonar -Dsonar.host.url=http://sq:9000 -Dsonar.login=9d1c7e4b2a5f8e3c6b0a9d8e7f6c5b4a3e2d1c0b",
     "9d1c7e4b2a5f8e3c6b0a9d8e7f6c5b4a3e2d1c0b", "-Dsonar.login="),
    ("alias vnc='x11vnc -passwd Otter5521 -forever'", "Otter5521", "x11vnc -passwd "),
    ("helm install db bitnami/postgresql --set auth.usernames[0]=app --set auth.passwords[0]=Cobalt7712", "Cobalt7712",
     "auth.usernames[0]=app"),
    ("openssl enc -aes-256-cbc -k Lantern#82 -in a.tar -out a.tar.enc", "Lantern#82", "-in a.tar"),
    ('curl --user "ops@corp.io":Walrus5531 https://api.corp/v1', "Walrus5531", '"ops@corp.io":'),
]

LOOK_ALIKES = [
    "docker run -u 1000 -p 8080:80 nginx",
    "docker run -d -p 127.0.0.1:5432:5432 postgres:16",
    "psql -h localhost -p 15432 -U harshit -d ads",
    "psql --host db.internal -p 8443 -U jdoe --password appdb",
    "mysql -u root -p graduation_clearance < schema.sql",
    "mysql -u root -p",
    "ssh -p 2222 -l deploy 10.0.0.1",
    "scp -P 2222 -i ~/.ssh/id_rsa file host:/tmp/",
    "ssh -i ~/.ssh/id_rsa ubuntu@10.0.0.5",
    "echo \"$GITHUB_TOKEN\" | gh auth login --with-token 2>/dev/null || true",
    "cat ~/my_password.txt | docker login --username foo --password-stdin",
    "docker build --secret id=npmrc,src=.npmrc -t myapp .",
    "gcloud secrets versions access latest --secret=db-password --project=acme-prod",
    "cargo test -p foundation_vectors",
    "python -m pytest -p no:randomly -q",
    "mkdir -p build/{debug,release}",
    "read -r -s -p \"Password: \" PASS",
    "git cherry-pick 5b36a01a67dd705248496ef46999f39b43e02da9 --no-commit",
    "docker pull ubuntu@sha256:f144425ff09be612d6d9ad965196e9cdc23dae1f42110a8a11a3e9a819870042",
    "az account set --subscription 254770f5-8904-4dba-91ec-ccc3fc1626e5",
    "pip install torch==2.9.1 --extra-index-url https://download.pytorch.org/whl/cpu",
    "sshpass -p \"$SSH_PASS\" ssh -o StrictHostKeyChecking=no \"$USER@$HOST\"",
    "wget --user=\"${FTP_USERNAME}\" --password=\"${FTP_PASSWORD}\" ftp://${FTP_SERVER}/file",
    "curl -u admin:$PASSWORD http://10.52.2.108:31112/system/functions",
    "roxctl --token-file ~/.rox/api-token central whoami",
    "terraform apply -var 'db_password=<REPLACE_ME>'",
    "export OPENAI_API_KEY=sk-...",
    "export ANTHROPIC_API_KEY=sk-ant-xxx",
    "curl -H \"Authorization: token ghp_YourPersonalAccessTokenHere\" https://api.github.com/user",
    "mysql --user=root --password= --execute=\"use app; show tables;\"",
    "ssh-keygen -t rsa -b 4096 -N '' -f ~/.ssh/id_rsa",
    "vault login -method=userpass username=admin",
    "dotnet build /p:Configuration=Release /p:Version=1.2.3",
    "git show origin/main:README.md",
    "redis-cli -a \"$$(cat /run/secrets/redis_pw)\" ping",
    "MYSQL_PWD='database-password' mysql -u backup",
    'export PGPASSWORD="${DB_PASSWORD:?DB_PASSWORD is required}"',
    "gcloud sql users set-password app --instance=db --password=$(gcloud secrets versions access latest "
    "--secret=app-db-pass)",
    "tool auth --client-id 3f2c9a1 -s 254770f5-8904-4dba-91ec-ccc3fc1626e5",
    "security find-generic-password -s wifi -w",
    'oathtool --totp --now "2024-02-29 16:21:00" --base32 "$TOTP_KEY"',
    "docker build --secret id=db_pass,src=db_password.txt -t myapp .",
    "psql --host db.internal -p 8443 -U jdoe --password appdb",
    # look-alikes the round 3 families must leave: references, placeholders, wordlists, pins
    "mysqladmin -u root password 'new-password'",
    "mysqladmin -u root password '你的密码'",
    "plink -pw $password root@$remoteHost $remoteCommand",
    "sudo mount -t cifs -o credentials=/etc/smb.credentials //server/folder /mnt/dat",
    "crackmapexec smb 10.0.0.0/24 -u users.txt -p passwords.txt --continue-on-success",
    "hydra -l admin -P /usr/share/wordlists/rockyou.txt 10.0.0.7 http-post-form '/login:user=^USER^&pass=^PASS^:Invalid'",
    "kubeadm join 10.0.0.1:6443 --token <token> --discovery-token-ca-cert-hash sha256:<hash>",
    "echo $HF_TOKEN | huggingface-cli login --token stdin",
    "redis-server --requirepass file:/run/secrets/redis_password",
    'docker run -e "SA_PASSWORD=yourStrong(!)Password" mcr.microsoft.com/mssql/server:2022-latest',
    "lftp -u utilisateur,motdepasse ftp.example.org",
    'curl https://api.corp/v1 -H "Authorization: Bearer sk-app-<key_id>.<secret>"',
    'curl --user "$login" -k "https://10.0.0.1/status?profile=1"',
    "net use \\\\<server>\\<share> /u:<user>",
    "net user administrator /active:yes",
    "mc alias set local http://minio:9000 $MINIO_ROOT_USER $MINIO_ROOT_PASSWORD",
]


# look-alikes the command rules overrule a general guess on: only through `redact_command` (the
# general `redact` reads a line as a command only when a trigger such as ` -p` says so)
COMMAND_LOOK_ALIKES = [
    "xfreerdp /v:hostname:3389 /u:username /p:password /gfx:AVC444",
    "docker run -e NEO4J_AUTH=neo4j/${NEO4J_PASSWORD} neo4j:5",
    "helm install db bitnami/mongodb --set auth.rootPassword=secretpassword,auth.username=my-user,auth.password=my-password",
]


@pytest.mark.parametrize("line", COMMAND_LOOK_ALIKES, ids=[line[:40] for line in COMMAND_LOOK_ALIKES])
def test_a_command_rule_overrules_a_general_guess_on_a_look_alike(line: str) -> None:
    assert redact_command(line) == line


@pytest.mark.parametrize(("line", "secret", "kept"), PLANTED, ids=[p[0][:40] for p in PLANTED])
def test_redact_command_replaces_the_secret_and_keeps_the_command(line: str, secret: str, kept: str) -> None:
    out = redact_command(line)
    assert secret not in out, out
    assert "[REDACTED:" in out
    assert kept in out, out
    assert redact_command(out) == out  # idempotent


@pytest.mark.parametrize("line", LOOK_ALIKES, ids=[line[:40] for line in LOOK_ALIKES])
def test_look_alike_command_survives_byte_for_byte(line: str) -> None:
    assert redact_command(line) == line
    assert redact(line) == line


def test_a_command_pasted_into_prose_loses_its_secrets_through_redact() -> None:
    text = ("I ran these and the second one failed:\n\n```\n$ rdesktop -u admin -p Qv7rLm2x9 10.0.4.12\n"
            "$ secretsdump.py CORP/alice:Falcon77!@10.0.8.21\n$ docker run -p 8080:80 nginx\n```\nany idea?")
    out = redact(text)
    assert "Qv7rLm2x9" not in out and "Falcon77!" not in out
    assert "docker run -p 8080:80 nginx" in out and "any idea?" in out


def test_prose_that_only_mentions_a_flag_is_left_alone() -> None:
    text = "Pass the password with -p only in scripts; prefer --password-stdin, and use -u for the user."
    assert redact(text) == text


RECOVERY = ["ltrtf-8xif8", "12j1t-l9r92", "7izcz-73c2a", "2ktsq-rvq0e", "h1lht-fukss", "3ceb5-0hfao"]
BACKUP = ["o0yk5t7n", "ekc9ikvn", "nvq8z615", "ulwwpce6", "4cjgwe3d"]


@pytest.mark.parametrize("lead", ["Here are your recovery codes:", "Your backup codes", "2FA codes for the admin:",
                                  "Ihre Wiederherstellungscodes:", "Voici vos codes de récupération :",
                                  "Seus códigos de recuperação:", "您的恢复码：", "Ваши резервные коды:"])
def test_a_recovery_code_list_after_a_lead_in_goes(lead: str) -> None:
    text = lead + "\n" + "\n".join(RECOVERY) + "\n\nkeep them safe"
    out = redact(text)
    assert not any(code in out for code in RECOVERY), out
    assert out.startswith(lead) and out.endswith("keep them safe")
    listed = "Save these backup codes somewhere safe.\n\n" + "\n".join(f"- `{c}`" for c in BACKUP)
    assert not any(code in redact(listed) for code in BACKUP)


@pytest.mark.parametrize("text", [
    "Recent backup commits:\n3f2c9a1\nb7d4e02\n9a0c1f3",
    "Error codes:\nE1001\nE1002\nE2040",
    "Here are your recovery options:\n- email\n- phone\n- a security key",
    "Recovery codes: 10 per account, shown once, in the form `xxxxx-xxxxx`.",
])
def test_a_list_that_is_not_codes_survives(text: str) -> None:
    assert redact(text) == text


TOKEN = "Xk9fQ2mZ7vB4nL8pR3sT6wY1aC5dE0gH2jK4mN6qP8r"


@pytest.mark.parametrize("url", [
    f"https://clients.host.example/portal/login/{TOKEN}", f"https://app.example.io/auth/magic/{TOKEN}",
    f"https://accounts.example.org/reset-password/{TOKEN}?src=mail", f"https://team.example.com/invite/{TOKEN}",
    "https://shop.example.com/password/reset/698aebc82d13b15b8092c5124bdb58b7953785c2cf2cc1f8fbc26741eda79e20",
])
def test_a_login_token_in_a_url_path_goes(url: str) -> None:
    out = redact(f"sign in with {url} before noon")
    token = url.rsplit("/", 1)[1].split("?")[0]
    assert token not in out and "[REDACTED:login-token]" in out, out
    assert out.startswith("sign in with https://") and out.endswith(" before noon")


@pytest.mark.parametrize("url", [
    "https://example.com/invite/team-onboarding-2024", "https://example.com/portal/login/sso.action",
    "https://auth0.com/docs/authenticate/login/auth0-universal-login",
    "https://github.com/pallets/flask/commit/b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b",
    "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/oauth2/v2.0/token",
])
def test_a_url_whose_path_is_not_a_token_survives(url: str) -> None:
    assert redact(url) == url


def _eval_module() -> Any:
    # loaded from its file: another test may have put a stand-in named eval_redaction on the path
    spec = importlib.util.spec_from_file_location("loreline_eval_redaction_cmd", ROOT / "scripts" / "eval_redaction.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _corpus_rows() -> list[dict[str, Any]]:
    import json

    path = ROOT / "tests" / "corpus" / "redaction" / "commands" / "commands.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_round_one_keeps_its_halves_and_is_all_tuning_material_now() -> None:
    """Round 1's test half was seen while its rules were fixed: it is labelled as such and tuned on."""
    import hashlib

    first = [r for r in _corpus_rows() if r["round"] == 1]
    assert len(first) == 575 and all(r["split"] == "tune" for r in first)
    for row in first:
        odd = hashlib.sha256(("loreline-commands-2026" + row["source"]).encode()).digest()[0] & 1
        assert row["half"] == ("round 1 test, now tuning" if odd else "round 1 tune")


def test_the_command_corpus_tuning_material() -> None:
    """Round 1 both halves and round 2, the rules' tuning material (the held-out round 3 is
    reported by `scripts/eval redaction`, not held to a figure here)."""
    tune = _eval_module().evaluate_commands("tune")
    assert tune["lines"] >= 460 and tune["negatives"] >= 580
    assert tune["recall"] >= 0.98 and tune["false_positives"] == 0, (tune["misses"], tune["false_positive_lines"])


def test_the_command_corpus_held_out_half() -> None:
    """Round 3 is reported, not tuned (its misses are not fixed one by one): a floor just below
    the figure measured with the final rules (0.860, 135/157 secrets; 19/300 look-alikes changed)
    catches a regression."""
    test = _eval_module().evaluate_commands("test")
    assert test["lines"] >= 150 and test["negatives"] >= 300
    assert test["recall"] >= 0.85 and test["false_positives"] <= 21


def test_round_two_was_measured_once_and_is_tuning_material_now() -> None:
    """Round 2 was held out and measured once (0.813); its misses were looked at since, so it is
    labelled as seen and tuned on, as round 1's test half before it."""
    second = [r for r in _corpus_rows() if r["round"] == 2]
    assert len(second) == 479 and all(r["split"] == "tune" and r["half"] == "round 2 test, now tuning" for r in second)


def test_round_three_is_a_fresh_held_out_half_from_new_sources() -> None:
    """Round 3 shares no source file and no line with rounds 1 and 2, and every row of it is held out."""
    rows = _corpus_rows()
    earlier = [r for r in rows if r["round"] in (1, 2)]
    third = [r for r in rows if r["round"] == 3]
    assert all(r["split"] == "test" and r["half"] == "round 3 test" for r in third)
    assert len(third) >= 300 and sum(r["label"] == "pos" for r in third) >= 150
    assert not {r["source"] for r in third} & {r["source"] for r in earlier}
    assert not {r["text"] for r in third} & {r["text"] for r in earlier}
    assert not any(r["source"].startswith("tldr-pages/") for r in third)
    for row in third:  # every secret is labelled where it sits
        assert [row["text"][a:b] for a, b in row["spans"]] == row["secrets"]
        assert (row["label"] == "pos") == bool(row["secrets"])


def _best_time(run: Any, text: str, repeat: int) -> float:
    """The least CPU time this process spent on `run(text)` (other processes on a busy machine
    do not count; the best of a few runs drops a stray pause)."""
    import time

    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run(text)
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("unit", ["mysql -u root -p ", "redis-cli -a x ", "--secret id=x ", "xfreerdp /p:b "])
@pytest.mark.parametrize("run", [redact, redact_command], ids=["redact", "redact_command"])
def test_redaction_time_grows_linearly_with_a_long_command_line(run: Any, unit: str) -> None:
    """Sixteen times the text takes about sixteen times as long: a command's words are looked at
    a bounded number of times and vetoes are checked by bisection. (Looping over every word of
    a command for each flag made `redact("mysql -u root -p " * 4000)` take seconds: a ratio near
    250.) Measured against a small input in the same run, so a slow machine does not matter."""
    small, large = unit * 250, unit * 4000
    run(small)  # patterns compiled, caches warm
    ratio = _best_time(run, large, 3) / max(_best_time(run, small, 7), 1e-4)
    assert ratio < 64, f"{ratio:.0f}x the time for 16x the text"


def test_a_command_run_again_is_looked_up_and_gives_the_same_answer() -> None:
    from loreline.privacy import commands
    from loreline.privacy.redact import redact_with

    line = "sshpass -p Zq8vT3mW9kL2 ssh deploy@web1 uptime"
    first = commands.redact_command(line)
    hits = commands._remembered.cache_info().hits
    assert commands.redact_command(line) == first == redact_with(line, whole_commands=True)
    assert "Zq8vT3mW9kL2" not in first and commands._remembered.cache_info().hits == hits + 1
    long = line + " " + "x" * commands.CACHED_CHARS  # past the cached length: worked out each time
    assert commands.redact_command(long) == redact_with(long, whole_commands=True)
    assert commands._remembered.cache_info().hits == hits + 1
