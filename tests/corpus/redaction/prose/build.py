"""Build `prose_secrets.jsonl`: secrets said in sentences, in nine languages, and their look-alikes.

Every sentence frame below is taken from public text (the frames are facts about how people and
programs word a password, a code or a card; see SOURCES.md for where each group comes from). A
frame's `{s}` is filled with a value made here by a fixed-seed generator, because public text
never carries a live secret. Rows are split into `tune` and `test` by the parity of the first
byte of sha256("loreline-prose-2026" + frame), so one frame with its values sits in one half.

    .venv/bin/python tests/corpus/redaction/prose/build.py   # rewrites prose_secrets.jsonl
"""

from __future__ import annotations

import hashlib
import json
import random
import string
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "prose_secrets.jsonl"

# (group, language, source key, frame) -- `{s}` is the secret, `{u}` a user name
POSITIVE_FRAMES: tuple[tuple[str, str, str, str], ...] = (
    # passwords: password-reset mails, onboarding notes, READMEs
    ("password", "en", "pw-mail-en", "Your temporary password is: {s}"),
    ("password", "en", "pw-mail-en", "Your temporary password is {s}. You will be asked to change your password upon your first login."),
    ("password", "en", "pw-mail-en", "{u},\nYour temporary password is below:\n\n{s}\n\nThank you,\nThe MyTwitter Team"),
    ("password", "en", "pw-mail-en", "Your username is {u} and temporary password is {s}."),
    ("password", "en", "pw-mail-en", "You have requested a password reset for your webmail account.\n\nYour temporary password is: {s}\n\nThis temporary password is valid for 15 minutes only."),
    ("password", "de", "pw-mail-de", "Dein neues Passwort lautet {s}"),
    ("password", "de", "pw-mail-de", "Vielen Dank für deine Registrierung bei GameShark. Dein vorläufiges Passwort lautet: {s} Sobald du dich zum ersten Mal einloggst wirst du von uns gebeten, ein eigenes Passwort zu vergeben."),
    ("password", "de", "pw-mail-de", "Ihr Passwort wurde aktualisiert. Das neue Passwort lautet: {s}"),
    ("password", "de", "pw-mail-de", "Du hast ein neues Passwort angefordert. Dein neues Passwort lautet \"{s}\" und wurde verschlüsselt gespeichert."),
    ("password", "de", "pw-mail-de", "Ihr neues Passwort lautet: {s}\nAus Sicherheitsgründen wird empfohlen, das Passwort nach der Anmeldung zu ändern."),
    ("password", "de", "pw-mail-de", "Dein generiertes Passwort lautet: {s}"),
    ("password", "de", "pw-mail-de", "Hallo {u}!\n\nDein Passwort wurde zurückgesetzt.\nDein neues Passwort lautet: {s}\n\nWir empfehlen Dir das Passwort bei der nächsten Anmeldung zu ändern."),
    ("password", "de", "pw-mail-de", "Dein neues Passwort lautet dann nachher:\n`{s}`"),
    ("password", "fr", "pw-mail-fr", "Le mot de passe a été réinitialisé. Le nouveau mot de passe est : {s}"),
    ("password", "fr", "pw-doc-fr", "- **Port :** 4455\n- **Mot de passe :** {s}"),
    ("password", "fr", "pw-doc-fr", "Nom d’utilisateur : {u}\nMot de passe : {s}"),
    ("password", "es", "pw-mail-es", "Hola {u},\n\nTu contraseña temporal es: {s}\n\nInicia sesión con ella y el sistema te va a pedir que la cambies de inmediato."),
    ("password", "es", "pw-mail-es", "Hola {u}, tu cuenta ha sido activada. Tu contraseña temporal es: {s} Debes cambiar esta contraseña al iniciar sesión."),
    ("password", "es", "pw-mail-es", "Tu contraseña temporal es : {s}. "),
    ("password", "es", "pw-mail-es", "Tu nueva contraseña es:\n\n{s}"),
    ("password", "es", "pw-mail-es", "Su nueva contraseña es '{s}'. Le recomendamos cambiarla."),
    ("password", "pt", "pw-mail-pt", "[SMS para 912345678] A sua senha é: {s}"),
    ("password", "pt", "pw-mail-pt", "Olá {u}! Seu cadastro foi realizado com sucesso! Sua senha é: {s}"),
    ("password", "pt", "pw-mail-pt", "Criamos uma senha inicial para você realizar o seu login.\nSua senha é: {s}"),
    ("password", "pt", "pw-mail-pt", "Seu login é: {u}\nSua senha é: {s}"),
    ("password", "it", "pw-mail-it", "La tua password è: {s}"),
    ("password", "it", "pw-mail-it", "Ciao {u}, la tua nuova password è {s} e potrai cambiarla dal profilo."),
    ("password", "ja", "pw-mail-ja", "以下の仮パスワードでログインしてください。\n\n仮パスワード：{s}\n\nログイン後は、マイページからお早めにパスワードの再設定を行ってください。"),
    ("password", "ja", "pw-mail-ja", "■ 保護者用（保護者ページ）\n　保護者ID：{u}\n　仮パスワード：{s}\n　※初回ログイン時に、ご自身の新しいパスワードを設定していただきます"),
    ("password", "ja", "pw-mail-ja", "メールアドレス：{u}@example.org\n仮パスワード：{s}\nログインしたら、ご自分のパスワードに変えてください。"),
    ("password", "ja", "pw-mail-ja", "ユーザー名：{u}\n仮パスワード：{s}\n\n※このメールに心当たりがない場合は、担当の管理者までご連絡ください。"),
    ("password", "zh", "pw-doc-zh", "MySQL install finish!\n\nMySQL 登录账户为root，密码为{s}，外挂MySQL数据目录为/home/mysql"),
    ("password", "zh", "pw-doc-zh", "数据库首次初始化时会创建 `root` 账号，密码为 `{s}`。首次登录后请立即修改密码。"),
    ("password", "zh", "pw-doc-zh", "重置密码成功，新密码为 {s}"),
    ("password", "ru", "pw-doc-ru", "Логин: {u}\nПароль: {s}"),
    ("password", "ru", "pw-doc-ru", "### Шаг 3: Войдите в ArgoCD\n\n- **Логин:** `admin`\n- **Пароль:** `{s}`"),
    ("password", "ru", "pw-doc-ru", "Сгенерирован пароль: {s}"),
    ("password", "ru", "pw-doc-ru", "Пользователь успешно добавлен! Email: {u}@mail.ru, Пароль: {s}"),
    ("password", "ru", "pw-doc-ru", "Ваш новый пароль: {s}"),
    ("password", "ru", "pw-doc-ru", "Логин (email): {u}@mail.ru\nПароль: {s}"),
    # user / password pairs after a login word
    ("password", "en", "pair-doc-en", "SDP is open in Firefox. Log in with administrator / {s}"),
    ("password", "en", "pair-doc-en", "3. Log in with {u}/{s} defined in the demo LDAP."),
    ("password", "en", "pair-doc-en", "Open http://127.0.0.1:8080/ and log in as {u}:{s} to reach the dashboard."),
    # one-time codes: SMS and mail templates
    ("otp", "en", "otp-tpl-en", "Your verification code is:\n\n{s}\n\nThis code expires in 10 minutes."),
    ("otp", "en", "otp-tpl-en", "Your AdMarket verification code is {s}. It expires in 10 minutes."),
    ("otp", "en", "otp-tpl-en", "Your ORCare verification code is: {s}. It expires in 10 minutes."),
    ("otp", "en", "otp-tpl-en", "TikTok: {s} is your verification code"),
    ("otp", "en", "otp-tpl-en", "[Acme] {s} is your verification code"),
    ("otp", "en", "otp-tpl-en", "DO NOT SHARE: {s} is your Acme one-time code. If you didn't request it, ignore this."),
    ("otp", "en", "otp-tpl-en", "Acme login code: {s}. Valid for 10 minutes."),
    ("otp", "en", "otp-tpl-en", "Hi Ayodeji, your CARVIVA Fuel Wallet code is {s}"),
    ("otp", "de", "otp-tpl-de", "Dein RibbitRoom Bestätigungscode\n\nDein Code lautet: {s} (gültig für 15 Minuten)."),
    ("otp", "de", "otp-tpl-de", "Dein Bestätigungscode ist {s}"),
    ("otp", "es", "otp-tpl-es", "Hola {u},\n\nTu código de verificación es: {s}\n\nEste código expirará en 10 minutos."),
    ("otp", "es", "otp-tpl-es", "Estimado usuario, su código de verificación es: {s}"),
    ("otp", "it", "otp-tpl-it", "Il tuo codice di verifica è {s}."),
    ("otp", "it", "otp-tpl-it", "Ciao,\n\nhai richiesto il reset della password.\n\nIl tuo codice di verifica è:\n\n{s}\n\nQuesto codice è valido per 10 minuti."),
    ("otp", "pt", "otp-tpl-pt", "Rio Porto P2P: Seu código de verificação é {s}. Válido por 10 minutos."),
    ("otp", "pt", "otp-tpl-pt", "O teu código de verificação é {s}"),
    ("otp", "fr", "otp-tpl-fr", "Votre code de vérification est : {s}. Ce code est valable pendant 10 minutes."),
    ("otp", "fr", "otp-tpl-fr", "NOON Center : votre code de vérification est {s}"),
    ("otp", "ja", "otp-tpl-ja", "認証コードは {s} です。"),
    ("otp", "ja", "otp-tpl-ja", "{u} 様、\n\nパスワードのリセットリクエストを受け付けました。\n\n認証コードは次のとおりです：{s}\n\nこのコードは15分で期限切れになります。"),
    ("otp", "zh", "otp-tpl-zh", "您的验证码是：{s}，该验证码将在5分钟后过期。"),
    ("otp", "zh", "otp-tpl-zh", "短信编号 2026；【Apple】您的验证码是 {s}，请勿泄露"),
    ("otp", "ru", "otp-tpl-ru", "Ваш код подтверждения: {s}"),
    ("otp", "ru", "otp-tpl-ru", "⚠ Запрос на отвязку Telegram от аккаунта «{u}». Код подтверждения: {s}\nДействует 15 минут."),
    # card numbers with expiry or CVC: payment test-card documentation, a support ticket
    ("card", "en", "card-doc", "**Visa (debit)**: `{s}`\n- **Expiry**: Any future date (e.g., 12/25)\n- **CVC**: Any 3 digits (e.g., 123)"),
    ("card", "en", "card-doc", "1. **Visa (Success)**\n   - Number: `{s}`\n   - CVV: `123`\n   - Use for: Successful payment processing"),
    ("card", "en", "card-ticket", "Refund my $900 order to my new card {s} please, exp 09/28, the old one is closed."),
    ("card", "es", "card-doc", "Tarjetas para prueba, puede utilizar como CVC: 123, un mes y año vigentes:\n\n* {s} Visa"),
    ("card", "en", "card-doc", "| Visa (Debit) | {s} | 3 digits | Any future date |"),
    # recovery and backup codes
    ("recovery-code", "en", "recovery-doc", "github-recovery-codes.txt:\n{s}"),
    ("recovery-code", "en", "recovery-doc", "Type your authentication code or one of your recovery codes and click Verify. Mine are {s}"),
    ("recovery-code", "en", "recovery-doc", "Recovery codes: 10 per enrolment, keep them safe:\n{s}"),
    ("recovery-code", "en", "recovery-doc", "Here are my two-factor recovery codes\n\n{s}\n\nstore them in the vault"),
    ("recovery-code", "de", "recovery-doc", "5. Bewahren Sie Ihre Backup-Codes an einem sicheren Ort auf:\n{s}"),
)

# Public look-alikes, verbatim: sentences that mention a password or code without giving one,
# identifiers and digests that look random. (source key, text)
NEGATIVES: tuple[tuple[str, str], ...] = (
    ("validation-msg", "La contraseña es obligatoria"),
    ("validation-msg", "La contraseña debe tener al menos 6 caracteres"),
    ("validation-msg", "La contraseña es demasiado débil. Use al menos 6 caracteres."),
    ("validation-msg", "La nueva contraseña es igual a la actual"),
    ("validation-msg", "Le nouveau mot de passe est requis"),
    ("validation-msg", "Le mot de passe est trop court !"),
    ("validation-msg", "L'identifiant ou le mot de passe est incorrect. Veuillez réessayer."),
    ("validation-msg", "Chaque mot de passe est limité à 40 octets UTF-8."),
    ("validation-msg", "Mot de passe: 8 caracteres, 1 majuscule, 1 chiffre minimum."),
    ("validation-msg", "La password è obbligatoria."),
    ("validation-msg", "La password deve contenere almeno 8 caratteri."),
    ("validation-msg", "La tua password è stata reimpostata con successo. Verrai reindirizzato alla pagina di login..."),
    ("validation-msg", "La password è salvata come hash SHA-256 (non in chiaro)"),
    ("validation-msg", "Sua senha é criptografada e protegida com SALT seguro antes de ser gravada."),
    ("validation-msg", "O código de verificação é obrigatório."),
    ("validation-msg", "Il codice di verifica è scaduto. Richiedi un nuovo codice."),
    ("validation-msg", "El código de verificación es incorrecto."),
    ("validation-msg", "Le code de vérification est requis"),
    ("validation-msg", "パスワードは6文字以上で入力してください"),
    ("validation-msg", "パスワードは4桁で入力してください"),
    ("validation-msg", "認証コードは6桁の数字である必要があります"),
    ("validation-msg", "認証コードは1日最大5回まで再送できます。現在 3 回リクエストしています。"),
    ("validation-msg", "密码为必填项"),
    ("validation-msg", "注册密码为 6-20位数字、字母或两者组合"),
    ("validation-msg", "密码修改失败，请检查原始密码是否正确"),
    ("validation-msg", "Ваш пароль должен быть не менее 6 символов"),
    ("validation-msg", "Ваш пароль был успешно изменён!"),
    ("validation-msg", "Verification code is required"),
    ("validation-msg", "Passwort: mindestens 12 Zeichen, davon 1 Ziffer"),
    ("validation-msg", "Das Passwort spielt auf Caesar an, der 49 v. Chr. den Grenzfluss Rubikon überschritt."),
    ("doc-prose", "Log in with admin credentials, then go to the Apps menu."),
    ("doc-prose", "Log in with admin account</br>- Go to the Banners configuration page"),
    ("doc-prose", "Type your authentication code or one of your recovery codes and click **Verify**."),
    ("doc-prose", "Recovery codes: 10 per enrolment, `xxxxx-xxxxx` from an alphabet without look-alikes; only HMAC-SHA256(pepper, normalised code) is stored"),
    ("doc-prose", "The temporary password is never returned to the caller: if the email fails, the account still exists."),
    ("doc-prose", "Reset your password in settings, then sign in again."),
    ("doc-prose", "The password field is required and must be at least 12 characters."),
    ("doc-prose", "Passwords are hashed with argon2id and the 2FA secret is stored encrypted at rest."),
    ("doc-prose", "Set DB_PASSWORD in .env.local before running docker compose up."),
    ("doc-prose", "Verifies a code against a challenge. The verification code is provided by the user."),
    ("doc-prose", "A verification code is being sent..."),
    ("doc-prose", "Use the Visa test card ending in 4242 with any future expiry date and any CVC."),
    ("doc-prose", "templateId 7839 对应的内容是\"您的验证码是: {1}\""),
    ("code-number", "The process exited with code 137 after 2048 MB of memory."),
    ("code-number", "ConnectionResetError: [WinError 10054] error code 10054, an existing connection was forcibly closed"),
    ("code-number", '{"error": {"code": 40001, "message": "invalid request"}}'),
    ("code-number", "HTTP status code 404 on GET /api/v2/users/123456"),
    ("code-number", "Ship it to zip code 94103 before 2025-03-14."),
    ("code-number", "See issue #48213 and PR 12345; fixed in commit 3f9c2e1."),
    ("code-number", "Postgres listens on port 5432 and Redis on 6379; the API on 8080."),
    ("code-number", "created_at 1701388800000, updated 1701389000123"),
    ("code-number", "Discord user id 1093848267491229716 joined the channel 1093848267491229999."),
    ("code-number", "Order 4111 1111 was split into 3 parcels on 12/25."),
    ("code-number", "Line 2048 of the source code fails since version 2024.1."),
    ("code-number", "Error code: 500210, Request id: 7d1f5e0a"),
    ("digest", "commit b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b (HEAD -> main)"),
    ("digest", "sha256:6d9c6e6b8bd4e52e3b4f87ca8dc1c88b1f2a9e4f3b3d5c3a9f1e2d4c6b8a0f12"),
    ("digest", '<script src="https://code.jquery.com/jquery-3.7.1.min.js" integrity="sha256-/JqT3SQfawRcv/BIHPThkBvs0OEvtFFmqPF/lYI/Cxo=" crossorigin="anonymous"></script>'),
    ("digest", '"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg=="'),
    ("digest", "COMPANY_ID = \"fa604740-0963-44e2-b73f-60238507570b\""),
    ("digest", "request id 0b1e4a52-9a2f-4c1e-8f33-7c2d5e9b1a40 failed"),
    ("digest", "2a9741f Per-prompt recall by meaning leaves out what the session loads"),
    ("image", "![logo](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==)"),
    ("version", "Bump pydantic from 2.7.4 to 2.8.0 and node to v20.11.1; the password hashing lib is bcrypt 4.1.3."),
    ("version", "colors: #1E3A5F, #E67E22, #fff and #4A90E2 for the verification page"),
    ("version", "The meeting is on 2025-11-30 at 14:30; the backup ran 03/12/2024."),
    ("version", "font-size: 36px; letter-spacing: 8px; the OTP input has 6 boxes"),
)

# Shapes added after the first rules (issue: a lead-in line then one code per line, and login
# tokens in URL paths, both passed redaction). Split by the same rule as the rest, before their
# rules were written; the rules were written against the `tune` rows only. Their values come from
# a generator of their own, so the rows above stay byte for byte what they were.
ADDED_FRAMES: tuple[tuple[str, str, str, str], ...] = (
    # a lead-in line, then one code per line (2FA setup pages and mails: "Here are your recovery
    # codes", "Save these backup codes somewhere safe", and their translations)
    ("recovery-list", "en", "recovery-leadin", "Here are your recovery codes:\n{s}"),
    ("recovery-list", "en", "recovery-leadin", "Two-Factor Authentication enabled successfully. Here are your recovery codes:\n\n{s}\n\nStore them somewhere safe."),
    ("recovery-list", "en", "recovery-leadin", "Save these backup codes somewhere safe. Each one works once if you lose your device.\n{s}"),
    ("recovery-list", "en", "recovery-leadin", "Your backup codes\n{s}"),
    ("recovery-list", "en", "recovery-leadin", "2FA codes for the staging admin:\n{s}"),
    ("recovery-list", "en", "recovery-leadin", "Here are your recovery codes. Keep them in a safe place. Each code can only be used once.\n\n{s}"),
    ("recovery-list", "en", "recovery-leadin", "Two-factor backup codes (acme-prod)\n\n{s}\n"),
    ("recovery-list", "en", "recovery-leadin", "Hello {u}!\nHere are your recovery codes for two-factor authentication. Store them somewhere safe.\n{s}"),
    ("recovery-list", "de", "recovery-leadin", "Ihre Wiederherstellungscodes:\n{s}"),
    ("recovery-list", "de", "recovery-leadin", "Speichere diese Backup-Codes an einem sicheren Ort:\n{s}"),
    ("recovery-list", "fr", "recovery-leadin", "Voici vos codes de récupération :\n{s}"),
    ("recovery-list", "es", "recovery-leadin", "Estos son tus códigos de recuperación:\n{s}"),
    ("recovery-list", "pt", "recovery-leadin", "Seus códigos de recuperação:\n{s}"),
    ("recovery-list", "it", "recovery-leadin", "Ecco i tuoi codici di recupero:\n{s}"),
    ("recovery-list", "ja", "recovery-leadin", "リカバリーコードを安全な場所に保管してください:\n{s}"),
    ("recovery-list", "zh", "recovery-leadin", "您的恢复码：\n{s}"),
    ("recovery-list", "ru", "recovery-leadin", "Ваши резервные коды:\n{s}"),
    # a login token in a URL path: login links, magic links, password resets, invitations
    ("url-token", "en", "login-link", "Sign in here: https://clients.example-hosting.com/portal/login/{s}"),
    ("url-token", "en", "login-link", "Your magic link: https://app.example.io/auth/magic/{s}"),
    ("url-token", "en", "login-link", "Reset your password: https://accounts.example.org/reset-password/{s}"),
    ("url-token", "en", "login-link", "You've been invited to join the workspace. Accept: https://team.example.com/invite/{s}"),
    ("url-token", "en", "login-link", "Click to log in: https://example.app/login/{s}?next=/dashboard"),
    ("url-token", "en", "login-link", "the link from the mail was https://example.net/auth/{s} and it expired after an hour"),
    ("url-token", "en", "login-link", "Verify your email address: https://example.com/verify-email/{s}"),
    ("url-token", "en", "login-link", "open https://cms.example.org/magic-link/{s} to get into the admin"),
    ("url-token", "en", "login-link", "Password reset: https://shop.example.com/password/reset/{s}?email={u}%40example.com"),
    ("url-token", "en", "login-link", "- Admin login: `https://portal.example.dev/portal/login/{s}`"),
    ("url-token", "de", "login-link", "Melden Sie sich hier an: https://kunden.example.de/login/{s}"),
    ("url-token", "fr", "login-link", "Réinitialisez votre mot de passe : https://compte.example.fr/reset-password/{s}"),
    ("url-token", "es", "login-link", "Tu enlace de acceso: https://app.example.es/auth/magic/{s}"),
)
ADDED_NEGATIVES: tuple[tuple[str, str], ...] = (
    ("login-route", "Routes: /portal/login/lkpp, /portal/login/sso.action and /api/portal/login/verify"),
    ("login-route", "GET /auth/magic-link/verify?token=<uuid> puts the token in the query string"),
    ("login-route", "path: '/auth/magic-link/:token', element: <VerifyEmailMagicLink />"),
    ("login-route", "POST /customer/auth/magic-link/confirm and /customer/auth/verify-email"),
    ("login-route", "See https://auth0.com/docs/authenticate/login/auth0-universal-login for the hosted page."),
    ("login-route", "token endpoint: https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/oauth2/v2.0/token"),
    ("login-route", "https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&scope=repo"),
    ("login-route", "the invite page is https://example.com/invite/accept and the reset page https://example.com/reset-password/confirm"),
    ("commit-url", "fixed in https://github.com/pallets/flask/commit/b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b"),
    ("commit-url", "https://gitlab.com/gitlab-org/gitlab/-/blob/4d2e6f1a9c3b5d7e8f0a1b2c3d4e5f6a7b8c9d0e/app/models/user.rb"),
    ("code-list", "Error codes:\nE1001\nE1002\nE2040"),
    ("code-list", "Recent backup commits:\n3f2c9a1\nb7d4e02\n9a0c1f3"),
    ("code-list", "Here are your recovery options:\n- email\n- phone\n- a security key"),
    ("code-list", "Recovery codes: 10 per account, shown once, in the form `xxxxx-xxxxx`."),
)
_ADDED_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def _added_value(group: str, rng: random.Random) -> str:
    if group == "url-token":
        style = rng.randrange(4)
        alphabet = (string.ascii_letters + string.digits + "-_", "0123456789abcdef",
                    string.ascii_letters + string.digits, string.ascii_letters + string.digits + "-_")[style]
        return "".join(rng.choice(alphabet) for _ in range((43, 64, 32, 22)[style]))
    style = rng.randrange(3)
    count = rng.choice((6, 8, 10))
    if style == 0:  # xxxxx-xxxxx
        codes = ["".join(rng.choice(_ADDED_ALPHABET) for _ in range(5)) + "-"
                 + "".join(rng.choice(_ADDED_ALPHABET) for _ in range(5)) for _ in range(count)]
    else:  # 8 or 10 letters and digits
        size = (8, 10)[style - 1]
        codes = ["".join(rng.choice(_ADDED_ALPHABET) for _ in range(size)) for _ in range(count)]
    return "\n".join(codes)


_WORDS = ("Falke", "Sommer", "Chaton", "Perro", "Hikari", "Maple", "Orbit", "Nimbus", "Kaffee", "Tigre",
          "Luna", "Sakura", "Volga", "Marmot", "Quokka", "Zephyr")
_USERS = ("anna", "jdoe", "ivan", "admin", "maria", "kenji", "li.wei", "root")


def _card(rng: random.Random, prefix: str, length: int) -> str:
    digits = [int(c) for c in prefix] + [rng.randrange(10) for _ in range(length - len(prefix) - 1)]
    total = 0
    for index, digit in enumerate(reversed(digits)):
        if index % 2 == 0:
            digit *= 2
            digit -= 9 if digit > 9 else 0
        total += digit
    return "".join(map(str, digits)) + str((10 - total % 10) % 10)


def _values(group: str, rng: random.Random, n: int) -> list[str]:
    out = []
    for index in range(n):
        if group == "password":
            style = rng.randrange(5)
            word, other = rng.choice(_WORDS), rng.choice(_WORDS)
            digits = "".join(rng.choice(string.digits) for _ in range(rng.choice((2, 3, 4))))
            symbol = rng.choice("!#%&*+=?@$-_.")
            out.append((f"{word}{digits}{symbol}{other.lower()}", f"{word.lower()}{symbol}{other}{digits}",
                        "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(14)),
                        f"{other}_{word}_{digits}x", f"{word[:3]}{symbol}{digits}{other[:4].upper()}")[style])
        elif group == "otp":
            out.append("".join(rng.choice(string.digits) for _ in range(rng.choice((6, 6, 6, 4, 8)))))
        elif group == "card":
            prefix, length = rng.choice((("4", 16), ("51", 16), ("2221", 16), ("37", 15), ("6011", 16)))
            number = _card(rng, prefix, length)
            sep = rng.choice((" ", "-", " ", ""))
            groups = [number[i:i + 4] for i in range(0, 16, 4)] if length == 16 else [number[:4], number[4:10], number[10:]]
            out.append(sep.join(groups))
        else:
            if index % 2 == 0:
                codes = ["".join(rng.choice("0123456789abcdef") for _ in range(5)) + "-"
                         + "".join(rng.choice("0123456789abcdef") for _ in range(5)) for _ in range(rng.choice((4, 8, 16)))]
            else:
                codes = ["".join(rng.choice(string.digits) for _ in range(4)) + " "
                         + "".join(rng.choice(string.digits) for _ in range(4)) for _ in range(rng.choice((5, 10)))]
            out.append("\n".join(codes) if rng.random() < 0.6 else " ".join(codes))
    return out


def split_of(key: str) -> str:
    return "test" if hashlib.sha256(("loreline-prose-2026" + key).encode()).digest()[0] & 1 else "tune"


def build() -> list[dict[str, object]]:
    rng = random.Random(20261201)
    rows: list[dict[str, object]] = []
    for group, lang, source, frame in POSITIVE_FRAMES:
        for value in _values(group, rng, 2):
            text = frame.replace("{u}", rng.choice(_USERS)).replace("{s}", value)
            secrets = value.split() if group == "recovery-code" and "-" in value else (
                [value] if group != "recovery-code" else [" ".join(value.split()[i:i + 2]) for i in range(0, len(value.split()), 2)])
            rows.append({"label": "pos", "group": group, "lang": lang, "source": source, "text": text,
                         "secrets": secrets, "split": split_of(frame)})
    for source, text in NEGATIVES:
        rows.append({"label": "neg", "group": source, "lang": "", "source": source, "text": text,
                     "secrets": [], "split": split_of(text)})
    added = random.Random(20261203)
    for group, lang, source, frame in ADDED_FRAMES:
        for _ in range(2):
            value = _added_value(group, added)
            text = frame.replace("{u}", added.choice(_USERS)).replace("{s}", value)
            rows.append({"label": "pos", "group": group, "lang": lang, "source": source, "text": text,
                         "secrets": value.split("\n"), "split": split_of(frame)})
    for source, text in ADDED_NEGATIVES:
        rows.append({"label": "neg", "group": source, "lang": "", "source": source, "text": text,
                     "secrets": [], "split": split_of(text)})
    return rows


if __name__ == "__main__":
    rows = build()
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} rows -> {OUT}")
