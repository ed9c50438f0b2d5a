from django.contrib import admin

from .models import Club, GameSession, Hand, Membership, Player, Seat


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ("name", "created_at")
    inlines = [MembershipInline]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "club", "user")
    list_filter = ("club",)


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(GameSession)
class GameSessionAdmin(admin.ModelAdmin):
    list_display = ("name", "club", "status", "hands_count", "created_at")
    list_filter = ("status", "club")
    inlines = [SeatInline]


@admin.register(Hand)
class HandAdmin(admin.ModelAdmin):
    list_display = ("session", "number", "kind", "status", "created_at")
    list_filter = ("status", "kind")
